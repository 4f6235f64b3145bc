// Issue 5: batch ingest must store at least 5x the records/s of single composes, measured in the
// same run against the same daemon. Single composes get 50 connections (as in 01-compose); batches
// need few connections, since each request already carries its records.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { autocannon, composeBody, createSource, startDaemon, tempHome } from '../lib.mjs';

const SECONDS = Number(process.env.BENCH_BATCH_SECONDS ?? 8);

async function recordsPerSecond(root, home, daemon, path, body, connections, perRequest) {
  // A batch of 1,000 is too long for a command line: autocannon reads the body from a file.
  const file = join(home, `body-${perRequest}.json`);
  writeFileSync(file, body);
  const args = ['-c', String(connections), '-m', 'POST', '-H', 'content-type=application/json', '-H', `authorization=Bearer ${daemon.token}`, '-i', file];
  await autocannon(root, [...args, '-d', '2', `${daemon.url}${path}`]); // warm-up
  const result = await autocannon(root, [...args, '-d', String(SECONDS), `${daemon.url}${path}`]);
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { perSecond: Math.round((result['2xx'] * perRequest) / result.duration), p99: result.latency.p99 };
}

export default async function run({ root, log }) {
  const home = tempHome();
  const daemon = await startDaemon(root, home.path);
  try {
    const source = await createSource(daemon.url, daemon.token, 'bench');
    const single = `/http-traffic-record/${source.id}`;
    const batch = `${single}/batch`;
    const items = (n) => JSON.stringify(Array.from({ length: n }, (_, i) => composeBody(source.id, { pathnameUrl: `/api/orders/${i % 50}` })));

    log(`single composes: ${SECONDS} s at 50 connections`);
    const one = await recordsPerSecond(root, home.path, daemon, single, JSON.stringify(composeBody(source.id)), 50, 1);
    log(`batches of 100: ${SECONDS} s at 4 connections`);
    const hundred = await recordsPerSecond(root, home.path, daemon, batch, items(100), 4, 100);
    log(`batches of 1,000: ${SECONDS} s at 2 connections`);
    const thousand = await recordsPerSecond(root, home.path, daemon, batch, items(1000), 2, 1000);

    const best = Math.max(hundred.perSecond, thousand.perSecond);
    return {
      'single compose records/s (50 connections)': one.perSecond,
      'batch of 100 records/s (4 connections)': `${hundred.perSecond} (request p99 ${hundred.p99} ms)`,
      'batch of 1,000 records/s (2 connections)': `${thousand.perSecond} (request p99 ${thousand.p99} ms)`,
      'batch / single (target >= 5x)': `${(best / one.perSecond).toFixed(1)}x`,
    };
  } finally {
    await daemon.stop();
    home.remove();
  }
}
