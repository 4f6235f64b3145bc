// Issue 4: latency from a compose being answered to its line printed by `tapline traffic tail`,
// at 200 records/s for 10 s (target p99 < 50 ms), realistic records. Each record has its own path,
// so every line is matched to the compose that produced it; a line printed before the answer
// counts as 0 ms. One measurement, no floor: the figure is a latency budget, not a ratio.
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { composeRecord, createSource, percentile, startDaemon } from '../lib.mjs';
import { figure } from '../figures.mjs';
import { loadRealisticRecord } from '../ts.mjs';

export const figures = [
  'tail latency p50 ms',
  'tail latency p99 ms',
  'tail latency max ms',
  'compose rate achieved records/s',
];

export default async function run({ root, log, quick, tmp }) {
  const [RATE, SECONDS] = quick ? [50, 1] : [200, 10];
  const home = tmp();
  const daemon = await startDaemon(root, home.path);
  const source = await createSource(daemon.url, daemon.token, 'bench');
  const record = composeRecord(await loadRealisticRecord(root), source.id);
  const tail = spawn(
    process.execPath,
    [
      join(root, 'packages/cli/dist/tapline.js'),
      '--url',
      daemon.url,
      '--token',
      daemon.token,
      'traffic',
      'tail',
      source.id,
      '--lines',
      '0',
      '--ndjson',
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const printedAt = new Map();
  const waiters = new Map();
  let pending = '';
  tail.stdout.on('data', (chunk) => {
    const now = performance.now();
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const path = JSON.parse(line).pathname;
      printedAt.set(path, now);
      waiters.get(path)?.();
    }
  });
  const printed = (path, timeoutMs = 10_000) =>
    printedAt.has(path)
      ? Promise.resolve()
      : new Promise((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new Error(`${path} was not printed within ${timeoutMs} ms`)),
            timeoutMs,
          );
          waiters.set(path, () => (clearTimeout(timer), resolve()));
        });
  // A small keep-alive pool, as an instrumented app would hold: no connection storm when the daemon lags.
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const composeAt = (path) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ ...record, pathnameUrl: path });
      const req = request(`${daemon.url}/http-traffic-record/${source.id}`, {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${daemon.token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 201 ? resolve() : reject(new Error(`compose answered ${res.statusCode}`)),
        );
      });
      req.on('error', reject);
      req.end(body);
    });

  try {
    // Warm-up: the tail is connected once a record composed now is printed.
    for (let i = 0; !printedAt.has('/warm'); i++) {
      if (i > 200) throw new Error('tapline traffic tail printed nothing');
      if (i % 10 === 0) await composeAt('/warm');
      await new Promise((r) => setTimeout(r, 50));
    }
    log(`measuring ${SECONDS} s at ${RATE} records/s`);
    const answeredAt = new Map();
    const sends = [];
    const started = performance.now();
    for (let n = 0; n < RATE * SECONDS; n++) {
      const due = started + (n * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const path = `/bench/${n}`;
      sends.push(
        composeAt(path).then(
          () => answeredAt.set(path, performance.now()),
          (e) => {
            throw new Error(`compose ${path}: ${e.code ?? e.message}`);
          },
        ),
      );
    }
    await Promise.all(sends);
    const achieved = (RATE * SECONDS) / ((performance.now() - started) / 1000);
    await Promise.all([...answeredAt.keys()].map((path) => printed(path)));
    const latencies = [...answeredAt].map(([path, at]) => Math.max(0, printedAt.get(path) - at)).sort((a, b) => a - b);
    return {
      figures: {
        'tail latency p50 ms': figure('ms', [percentile(latencies, 50)]),
        'tail latency p99 ms': figure('ms', [percentile(latencies, 99)]),
        'tail latency max ms': figure('ms', [latencies[latencies.length - 1]]),
        'compose rate achieved records/s': figure('records/s', [achieved]),
      },
    };
  } finally {
    tail.kill('SIGINT');
    agent.destroy();
    await daemon.stop();
    home.remove();
  }
}
