// Issue 3: start-up to first byte of `tapline traffic list <source>` (target < 300 ms).
// Each run spawns the built CLI afresh, the way a shell or CI job does, and the clock stops at
// the first byte on stdout: node start, module load, source-name lookup and the list request.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { api, startDaemon } from '../lib.mjs';
import { figure, interleave, median, versus } from '../figures.mjs';

export const figures = [
  'traffic list <name> to first byte ms',
  'traffic list <name> --json to first byte ms',
  'tapline --version ms',
  'node printing one byte ms',
];

const WARM_UP = 3; // spawns per case before measuring (one in quick mode)

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

/** The p50 of `runs` spawns. */
async function sample(cli, args, env, runs) {
  const times = [];
  for (let i = 0; i < runs; i++) times.push(await firstByte(cli, args, env));
  return median(times);
}

export default async function run({ root, log, quick, tmp }) {
  const [rounds, runs] = quick ? [1, 2] : [5, 8];
  const home = tmp();
  const daemon = await startDaemon(root, home.path);
  try {
    const source = await api(daemon.url, daemon.token, 'POST', '/traffic-source', {
      name: 'bench',
      trafficDomain: 'shop.example.com',
    });
    for (let i = 0; i < 50; i++) {
      await api(daemon.url, daemon.token, 'POST', `/http-traffic-record/${source.id}`, {
        domainUrl: 'https://shop.example.com',
        pathnameUrl: `/api/orders/${i}`,
        trafficSourceId: source.id,
        status: i % 7 === 0 ? 500 : 200,
        protocol: 'HTTPS',
        method: 'GET',
        elapsedTime: 12,
        requestHeaders: {},
        queryParams: {},
        responseHeaders: {},
      });
    }
    const cli = join(root, 'packages/cli/dist/tapline.js');
    const env = { PATH: process.env.PATH ?? '', HOME: home.path, TAPLINE_HOME: home.path, TAPLINE_URL: daemon.url };
    const cases = {
      node: ['-e', ["process.stdout.write('x')"]],
      list: [cli, ['traffic', 'list', 'bench']],
      json: [cli, ['traffic', 'list', 'bench', '--json']],
      version: [cli, ['--version']],
    };
    for (const [file, args] of Object.values(cases))
      for (let i = 0; i < (quick ? 1 : WARM_UP); i++) await firstByte(file, args, env);
    log(`${rounds} rounds of ${runs} spawns per case, node's own start first`);
    const values = await interleave(
      rounds,
      Object.entries(cases).map(([name, [file, args]]) => [name, () => sample(file, args, env, runs)]),
      log,
    );
    const floor = { 'node printing one byte': values.node };
    return {
      figures: {
        'traffic list <name> to first byte ms': versus('ms', values.list, floor),
        'traffic list <name> --json to first byte ms': versus('ms', values.json, floor),
        'tapline --version ms': versus('ms', values.version, floor),
        'node printing one byte ms': figure('ms', values.node),
      },
    };
  } finally {
    await daemon.stop();
    home.remove();
  }
}
