// Issue 3: start-up to first byte of `tapline traffic list <source>` (target < 300 ms).
// Each run spawns the built CLI afresh, the way a shell or CI job does, and the clock stops at
// the first byte on stdout: node start, module load, source-name lookup and the list request.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { api, percentile, startDaemon, tempHome } from '../lib.mjs';

const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 40);
const WARM_UP = 3;

function firstByte(cli, args, env) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
    let elapsed;
    let stderr = '';
    child.stdout.once('data', () => {
      elapsed = Number(process.hrtime.bigint() - started) / 1e6;
    });
    child.stdout.resume();
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0 || elapsed === undefined) reject(new Error(`tapline exited with ${code}: ${stderr}`));
      else resolve(elapsed);
    });
  });
}

async function sample(cli, args, env) {
  for (let i = 0; i < WARM_UP; i++) await firstByte(cli, args, env);
  const times = [];
  for (let i = 0; i < RUNS; i++) times.push(await firstByte(cli, args, env));
  times.sort((a, b) => a - b);
  return `p50 ${percentile(times, 50).toFixed(0)} ms, p95 ${percentile(times, 95).toFixed(0)} ms (${RUNS} runs)`;
}

export default async function run({ root, log }) {
  const home = tempHome();
  const daemon = await startDaemon(root, home.path);
  try {
    const source = await api(daemon.url, daemon.token, 'POST', '/traffic-source', { name: 'bench', trafficDomain: 'shop.example.com' });
    for (let i = 0; i < 50; i++) {
      await api(daemon.url, daemon.token, 'POST', `/http-traffic-record/${source.id}`, {
        domainUrl: 'https://shop.example.com', pathnameUrl: `/api/orders/${i}`, trafficSourceId: source.id, status: i % 7 === 0 ? 500 : 200,
        protocol: 'HTTPS', method: 'GET', elapsedTime: 12, requestHeaders: {}, queryParams: {}, responseHeaders: {},
      });
    }
    const cli = join(root, 'packages/cli/dist/tapline.js');
    const env = { PATH: process.env.PATH ?? '', HOME: home.path, TAPLINE_HOME: home.path, TAPLINE_URL: daemon.url };
    log(`spawning tapline ${RUNS} times per case`);
    return {
      'traffic list <name> to first byte': await sample(cli, ['traffic', 'list', 'bench'], env),
      'traffic list <name> --json to first byte': await sample(cli, ['traffic', 'list', 'bench', '--json'], env),
      'tapline --version (no daemon call)': await sample(cli, ['--version'], env),
      'node printing one byte (the floor)': await sample('-e', ["process.stdout.write('x')"], env),
    };
  } finally {
    await daemon.stop();
    home.remove();
  }
}
