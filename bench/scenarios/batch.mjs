// Issue 5: batch ingest must store at least 5x the records/s of single composes, measured in the
// same run against the same daemon. Single composes get 50 connections (as in 01-compose); batches
// need few, since each request carries its records: 4, so that one batch is stored while the next
// is parsed in the daemon's worker thread (with 2, the event loop waited on the thread).
//
// This machine's speed drifts by up to ±25% over a minute, which moved a ratio of two windows
// measured one after the other between 4.1x and 6.4x. So the kinds are interleaved: each round
// measures single, batch of 100 and batch of 1,000 back to back, the ratio (batches of 1,000 to
// single composes) is taken within the round, and the median round is the figure; every round's
// ratio is shown.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { autocannon, composeBody, createSource, startDaemon, tempHome } from '../lib.mjs';

const SECONDS = Number(process.env.BENCH_BATCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_BATCH_ROUNDS ?? 5);

function loader(root, home, daemon) {
  return async function recordsPerSecond({ path, body, connections, perRequest }, seconds) {
    // A batch of 1,000 is too long for a command line: autocannon reads the body from a file.
    const file = join(home, `body-${perRequest}.json`);
    writeFileSync(file, body);
    const args = ['-c', String(connections), '-m', 'POST', '-H', 'content-type=application/json', '-H', `authorization=Bearer ${daemon.token}`, '-i', file];
    const result = await autocannon(root, [...args, '-d', String(seconds), `${daemon.url}${path}`]);
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    return { perSecond: Math.round((result['2xx'] * perRequest) / result.duration), p99: result.latency.p99 };
  };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export default async function run({ root, log }) {
  const home = tempHome();
  const daemon = await startDaemon(root, home.path);
  try {
    const source = await createSource(daemon.url, daemon.token, 'bench');
    const single = `/http-traffic-record/${source.id}`;
    const items = (n) => JSON.stringify(Array.from({ length: n }, (_, i) => composeBody(source.id, { pathnameUrl: `/api/orders/${i % 50}` })));
    const kinds = {
      single: { path: single, body: JSON.stringify(composeBody(source.id)), connections: 50, perRequest: 1 },
      hundred: { path: `${single}/batch`, body: items(100), connections: 4, perRequest: 100 },
      thousand: { path: `${single}/batch`, body: items(1000), connections: 4, perRequest: 1000 },
    };
    const recordsPerSecond = loader(root, home.path, daemon);
    for (const kind of Object.values(kinds)) await recordsPerSecond(kind, 2); // warm-up

    const rounds = [];
    for (let i = 1; i <= ROUNDS; i++) {
      const round = {};
      for (const [name, kind] of Object.entries(kinds)) round[name] = await recordsPerSecond(kind, SECONDS);
      round.ratio = round.thousand.perSecond / round.single.perSecond;
      rounds.push(round);
      log(`round ${i}: single ${round.single.perSecond}, batch of 100 ${round.hundred.perSecond}, of 1,000 ${round.thousand.perSecond} records/s: ${round.ratio.toFixed(1)}x`);
    }
    const figure = (name) => median(rounds.map((r) => r[name].perSecond));
    const p99 = (name) => median(rounds.map((r) => r[name].p99));
    return {
      'single compose records/s (50 connections)': figure('single'),
      'batch of 100 records/s (4 connections)': `${figure('hundred')} (request p99 ${p99('hundred')} ms)`,
      'batch of 1,000 records/s (4 connections)': `${figure('thousand')} (request p99 ${p99('thousand')} ms)`,
      'batches of 1,000 / single, median round (target >= 5x)': `${median(rounds.map((r) => r.ratio)).toFixed(1)}x`,
      'batches of 1,000 / single, every round': rounds.map((r) => `${r.ratio.toFixed(1)}x`).join(', '),
    };
  } finally {
    await daemon.stop();
    home.remove();
  }
}
