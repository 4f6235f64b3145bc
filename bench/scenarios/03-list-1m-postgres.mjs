// The first page of a filtered list on 1,000,000 realistic records in Tapline on PostgreSQL
// (bench/postgres.mjs), the filters of 02-list-1m.mjs that realistic records can match (their
// 5xx is 502, not 503). Records are seeded through the batch endpoint, so every table and rollup
// the daemon keeps is as ingest leaves it, then vacuumed and analysed as autovacuum would. Before
// timing, each query's `meta.total` must equal the count PostgreSQL itself gives. Each round
// times `samples` requests per query (one keep-alive connection); figures are each round's p50
// and p99 (nearest rank). Target (issue 13): p99 <= 20 ms with exact totals.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { api, createSource, percentile } from '../lib.mjs';
import { figure, interleave, median } from '../figures.mjs';
import { PG, startPostgresDaemon } from '../postgres.mjs';
import { KEEP_EVERYTHING } from '../lib.mjs';
import { loadRealisticRecord } from '../ts.mjs';

/** Each query string, and the same filter in SQL over http_traffic for the exact count. */
const QUERIES = {
  'level=FATAL': "level = 'FATAL'",
  'status=502': 'status = 502',
  'status=5xx': 'status between 500 and 599',
  'method=DELETE&level=WARNING': "method = 'DELETE' and level = 'WARNING'",
};
export const figures = Object.keys(QUERIES)
  .flatMap((q) => [`first page ${q} p50 ms ${PG}`, `first page ${q} p99 ms ${PG}`])
  .concat(`records ${PG}`);

async function seedByBatches(daemon, sourceId, count, realisticRecord, log) {
  // Ten distinct batches in turn: realistic variety without building a million records here.
  const bodies = Array.from({ length: 10 }, (_, b) =>
    JSON.stringify(Array.from({ length: 1000 }, (_, i) => realisticRecord(b * 1000 + i, sourceId))),
  );
  const sizes = Array.from({ length: Math.ceil(count / 1000) }, (_, i) => Math.min(1000, count - i * 1000));
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < sizes.length; i = next++) {
      const body = sizes[i] === 1000 ? bodies[i % 10] : JSON.stringify(JSON.parse(bodies[i % 10]).slice(0, sizes[i]));
      await fetch(`${daemon.url}/http-traffic-record/${sourceId}/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
        body,
      }).then(async (r) => {
        if (!r.ok) throw new Error(`seeding batch answered ${r.status}: ${await r.text()}`);
      });
      if ((i + 1) % 100 === 0) log(`seeded ${((i + 1) * 1000).toLocaleString('en')} records`);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
}

export default async function run({ root, log, quick }) {
  // 300 requests a round: a p99 of 100 is their second slowest, one stall of the machine.
  const [count, rounds, samples] = quick ? [2_000, 1, 10] : [1_000_000, 5, 300];
  // A million realistic records take more than the default 2 GB budget on PostgreSQL: without these
  // flags the pruner removes the oldest while the totals are being compared (it did, by 73 entries).
  const pg = await startPostgresDaemon(root, log, KEEP_EVERYTHING);
  if (!pg.daemon) return { figures: {}, skipped: { [PG]: pg.unavailable } };
  const { Client } = createRequire(join(root, 'packages', 'daemon', 'package.json'))('pg');
  const client = new Client({ connectionString: pg.url });
  try {
    const { daemon } = pg;
    const source = await createSource(daemon.url, daemon.token, 'bench');
    log(`seeding ${count.toLocaleString('en')} records through the batch endpoint`);
    await seedByBatches(daemon, source.id, count, await loadRealisticRecord(root), log);
    await client.connect();
    await client.query('vacuum analyze');
    const steps = [];
    for (const [search, where] of Object.entries(QUERIES)) {
      const path = `/http-traffic/${source.id}?${search}`;
      const { rows } = await client.query(
        `select count(*)::int as n from http_traffic where traffic_source_id = $1 and ${where}`,
        [source.id],
      );
      const { meta } = await api(daemon.url, daemon.token, 'GET', path);
      if (meta.total !== rows[0].n)
        throw new Error(`${search}: meta.total ${meta.total}, PostgreSQL counts ${rows[0].n}`);
      log(`${search}: ${meta.total.toLocaleString('en')} records, meta.total exact`);
      for (let i = 0; i < 20; i++) await api(daemon.url, daemon.token, 'GET', path); // warm the cache
      steps.push([
        search,
        async () => {
          const times = [];
          for (let i = 0; i < samples; i++) {
            const started = process.hrtime.bigint();
            await api(daemon.url, daemon.token, 'GET', path);
            times.push(Number(process.hrtime.bigint() - started) / 1e6);
          }
          times.sort((a, b) => a - b);
          return { p50: median(times), p99: percentile(times, 99) };
        },
      ]);
    }
    const values = await interleave(rounds, steps, log);
    const result = { [`records ${PG}`]: figure('records', [count]) };
    for (const search of Object.keys(QUERIES)) {
      result[`first page ${search} p50 ms ${PG}`] = figure(
        'ms',
        values[search].map((v) => v.p50),
      );
      result[`first page ${search} p99 ms ${PG}`] = figure(
        'ms',
        values[search].map((v) => v.p99),
      );
    }
    return { figures: result };
  } finally {
    await client.end().catch(() => {});
    await pg.stop();
  }
}
