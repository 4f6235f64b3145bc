// Issue 26: `GET /stats/:id` for the last 24 hours by route and method, on a source holding
// 1,000,000 entries in 200 routes (bench/stats-data.mjs), seeded through the batch endpoint so
// that the minute, hour and day rows are what ingest leaves. Figures: the request's p50 and p99
// (nearest rank of `samples` requests a round, one keep-alive connection), against the floor of
// the same question asked of the raw entries in SQL in the same round (counts, error classes,
// exact percentiles per route and method, the latencies sorted per group in SQL). Before timing,
// each group's counts must equal the raw entries' and its percentiles be within 1 %. Also the statistics' size on disk (minute,
// hour and day rows with their keys) per million entries and per route-minute, beside the whole
// database's. On SQLite and on PostgreSQL (bench/postgres.mjs), which gets the SQLite half's
// entries and rows by `taplined copy` and then the minutes since through its own batch endpoint
// (the statistics' bytes there are the copy's). Target: p99 <= 50 ms on both.
// BENCH_STATS_ENTRIES sets the entries (default 1,000,000; quick mode 2,000, which checks the harness, not the speed).
import { execFile } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { api, createSource, KEEP_EVERYTHING, percentile, startDaemon } from '../lib.mjs';
import { figure, interleave, median, versus } from '../figures.mjs';
import { storedId } from '../payload-format.mjs';
import { PG, startPostgresDaemon } from '../postgres.mjs';
import { daemonRequire, seedStats, topUpStats } from '../stats-data.mjs';
import { loadRealisticRecord } from '../ts.mjs';

const QUANTILES = [0.5, 0.9, 0.95, 0.99];
const ENGINES = ['', ` ${PG}`];
export const figures = ENGINES.flatMap((e) => [
  `stats 24h by route,method p50 ms${e}`,
  `stats 24h by route,method p99 ms${e}`,
  `SQL floor from raw entries ms${e}`,
  `entries${e}`,
  `statistics bytes per million entries${e}`,
  `statistics bytes per route-minute${e}`,
  `database bytes per million entries${e}`,
]);

/** Groups of raw rows sorted by route, method and latency: the floor's answer, as the endpoint gives it. */
function groupsOfSorted(rows) {
  const groups = new Map();
  for (const row of rows) {
    const key = `${row.route_id} ${row.method}`;
    let g = groups.get(key);
    if (!g)
      groups.set(key, (g = { routeId: row.route_id, method: row.method, latencies: [], status4xx: 0, status5xx: 0 }));
    g.latencies.push(row.elapsed_time);
    if (row.status >= 400 && row.status < 500) g.status4xx++;
    if (row.status >= 500) g.status5xx++;
  }
  return [...groups.values()].map((g) => ({
    ...g,
    count: g.latencies.length,
    p: QUANTILES.map((q) => g.latencies[Math.floor(q * (g.latencies.length - 1))]),
  }));
}

const engines = {
  sqlite(dbFile, sourceId) {
    const Database = daemonRequire(globalThis.benchRoot)('better-sqlite3');
    const db = new Database(dbFile, { readonly: true });
    const raw = db.prepare(
      'select route_id, method, status, elapsed_time from http_traffic where traffic_source_id = ? and created_at >= ? and created_at < ? order by route_id, method, elapsed_time',
    );
    const routes = db.prepare('select id, template from routes where traffic_source_id = ?');
    const size = db.prepare(
      "select coalesce(sum(pgsize), 0) as n from dbstat where name in ('route_stats', 'route_rollups') or name like 'sqlite_autoindex_route_stats%' or name like 'sqlite_autoindex_route_rollups%'",
    );
    return {
      floor: async (since, until) =>
        groupsOfSorted(
          raw.all(storedId(sourceId), since, until).map((r) => ({ ...r, route_id: r.route_id.toString('hex') })),
        ),
      templates: async () => new Map(routes.all(storedId(sourceId)).map((r) => [r.id.toString('hex'), r.template])),
      sizes: async () => ({
        statistics: size.get().n,
        database: db.pragma('page_count', { simple: true }) * db.pragma('page_size', { simple: true }),
        routeMinutes: db.prepare('select count(*) as n from (select distinct route_id, minute from route_stats)').get()
          .n,
      }),
      close: async () => db.close(),
    };
  },
  async postgres(url, sourceId) {
    const { Client } = daemonRequire(globalThis.benchRoot)('pg');
    const client = new Client({ connectionString: url });
    await client.connect();
    await client.query('vacuum analyze');
    const one = async (text, values = []) => (await client.query(text, values)).rows;
    return {
      // The latencies aggregated sorted per group, so that the percentile is taken at the sketch's rank
      // (index floor(q × (n − 1))); percentile_disc's rank differs by one entry in small groups.
      floor: async (since, until) =>
        (
          await one(
            `select route_id, method, count(*)::int as count, (count(*) filter (where status between 400 and 499))::int as status4xx,
            (count(*) filter (where status >= 500))::int as status5xx, array_agg(elapsed_time order by elapsed_time) as latencies
          from http_traffic where traffic_source_id = $1 and created_at >= $2 and created_at < $3 group by route_id, method`,
            [sourceId, since, until],
          )
        ).map((r) => ({
          ...r,
          routeId: r.route_id,
          p: QUANTILES.map((q) => r.latencies[Math.floor(q * (r.latencies.length - 1))]),
        })),
      templates: async () =>
        new Map(
          (await one('select id, template from routes where traffic_source_id = $1', [sourceId])).map((r) => [
            r.id,
            r.template,
          ]),
        ),
      sizes: async () => ({
        statistics: Number(
          (await one("select pg_total_relation_size('route_stats') + pg_total_relation_size('route_rollups') as n"))[0]
            .n,
        ),
        database: Number((await one('select pg_database_size(current_database()) as n'))[0].n),
        routeMinutes: Number(
          (await one('select count(*) as n from (select distinct route_id, minute from route_stats) m'))[0].n,
        ),
      }),
      close: () => client.end(),
    };
  },
};

/** Each group's count equal to the raw entries', and each percentile within 1 % (plus the answer's 0.001 ms rounding). */
function expectExact(answer, floorGroups, templates) {
  const byKey = new Map(answer.data.map((g) => [`${g.route} ${g.method}`, g]));
  if (byKey.size !== floorGroups.length)
    throw new Error(`${byKey.size} groups answered, the raw entries have ${floorGroups.length}`);
  for (const f of floorGroups) {
    const g = byKey.get(`${templates.get(f.routeId)} ${f.method}`);
    if (!g || g.count !== f.count || g.status4xx !== f.status4xx || g.status5xx !== f.status5xx)
      throw new Error(
        `group ${templates.get(f.routeId)} ${f.method}: ${JSON.stringify(g)} against ${f.count} raw entries`,
      );
    QUANTILES.forEach((q, i) => {
      const got = g[`p${Math.round(q * 100)}`];
      if (Math.abs(got - f.p[i]) > f.p[i] * 0.01 + 0.0011)
        throw new Error(`group ${g.route} ${g.method} p${q * 100}: ${got} against ${f.p[i]}`);
    });
  }
}

async function measure({ daemon, engine, sourceId, count, rounds, samples, floorRuns, log, suffix }) {
  const path = `/stats/${sourceId}?since=24h&by=route,method`;
  const first = await api(daemon.url, daemon.token, 'GET', path);
  const { since, until } = first.meta;
  expectExact(first, await engine.floor(since, until), await engine.templates());
  log(
    `24 h${suffix}: ${first.data.length} groups, ${first.data.reduce((n, g) => n + g.count, 0).toLocaleString('en')} entries; counts exact, percentiles within 1 %`,
  );
  for (let i = 0; i < 20; i++) await api(daemon.url, daemon.token, 'GET', path); // warm up
  const values = await interleave(
    rounds,
    [
      [
        'floor',
        async () => {
          const times = [];
          for (let i = 0; i < floorRuns; i++) {
            const started = process.hrtime.bigint();
            await engine.floor(since, until);
            times.push(Number(process.hrtime.bigint() - started) / 1e6);
          }
          return median(times);
        },
      ],
      [
        'stats',
        async () => {
          // The floor's SQL (SQLite's is synchronous) held this process for seconds at a million
          // entries: the daemon may have closed the kept-alive connection meanwhile. One untimed
          // request, again on a new connection if that one failed, before the timed ones.
          await api(daemon.url, daemon.token, 'GET', path).catch(() => api(daemon.url, daemon.token, 'GET', path));
          const times = [];
          for (let i = 0; i < samples; i++) {
            const started = process.hrtime.bigint();
            await api(daemon.url, daemon.token, 'GET', path);
            times.push(Number(process.hrtime.bigint() - started) / 1e6);
          }
          times.sort((a, b) => a - b);
          return { p50: median(times), p99: percentile(times, 99) };
        },
      ],
    ],
    log,
  );
  const sizes = await engine.sizes();
  return {
    [`stats 24h by route,method p50 ms${suffix}`]: figure(
      'ms',
      values.stats.map((v) => v.p50),
    ),
    [`stats 24h by route,method p99 ms${suffix}`]: versus(
      'ms',
      values.stats.map((v) => v.p99),
      { 'the same question in SQL on the raw entries': values.floor },
    ),
    [`SQL floor from raw entries ms${suffix}`]: figure('ms', values.floor),
    [`entries${suffix}`]: figure('entries', [count]),
    [`statistics bytes per million entries${suffix}`]: figure('bytes', [(sizes.statistics / count) * 1e6]),
    [`statistics bytes per route-minute${suffix}`]: figure('bytes', [sizes.statistics / sizes.routeMinutes]),
    [`database bytes per million entries${suffix}`]: figure('bytes', [(sizes.database / count) * 1e6]),
  };
}

/** Seeds SQLite through the batch endpoint and measures; the home stays, for the PostgreSQL half to copy. */
async function sqliteHalf({ root, home, count, realisticRecord, log, rounds, samples, floorRuns }) {
  const daemon = await startDaemon(root, home.path, KEEP_EVERYTHING);
  let engine;
  try {
    const source = await createSource(daemon.url, daemon.token, 'bench');
    log(`seeding ${count.toLocaleString('en')} records through the batch endpoint (SQLite)`);
    const seeded = Date.now();
    await seedStats(daemon, source.id, count, realisticRecord, log, seeded);
    await topUpStats(daemon, source.id, count, realisticRecord, log, seeded);
    const toppedUp = Date.now();
    engine = engines.sqlite(join(home.path, 'tapline.db'), source.id);
    const figures = await measure({
      daemon,
      engine,
      sourceId: source.id,
      count,
      rounds,
      samples,
      floorRuns,
      log,
      suffix: '',
    });
    return { sourceId: source.id, toppedUp, figures };
  } finally {
    await engine?.close();
    await daemon.stop();
  }
}

/** `taplined copy` of the SQLite database `from` into the empty PostgreSQL database `to`. */
function copyDatabase(root, from, to) {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [join(root, 'packages/daemon/dist/taplined.js'), 'copy', '--from', from, '--to', to, '--batch-size', '2000'],
      { maxBuffer: 16 * 1024 * 1024 },
      (error, _stdout, stderr) =>
        error ? reject(new Error(`taplined copy failed: ${stderr || error.message}`)) : resolve(),
    );
  });
}

export default async function run({ root, log, quick, tmp }) {
  globalThis.benchRoot = root;
  const count = quick ? 2_000 : Number(process.env.BENCH_STATS_ENTRIES ?? 1_000_000);
  const [rounds, samples, floorRuns] = quick ? [1, 10, 1] : [3, 100, 3];
  const realisticRecord = await loadRealisticRecord(root);
  const result = {};
  const home = tmp();
  try {
    const { sourceId, toppedUp, figures } = await sqliteHalf({
      root,
      home,
      count,
      realisticRecord,
      log,
      rounds,
      samples,
      floorRuns,
    });
    Object.assign(result, figures);
    // PostgreSQL gets the same entries and statistics rows by `taplined copy` (minutes, where
    // seeding a million through its batch endpoint took over an hour here), then the minutes
    // since the SQLite half topped up, through its own daemon.
    const pg = await startPostgresDaemon(root, log, KEEP_EVERYTHING, async (url, pgHome) => {
      log(`copying the SQLite database to PostgreSQL (taplined copy)`);
      const started = Date.now();
      await copyDatabase(root, join(home.path, 'tapline.db'), url);
      log(`copied in ${Math.round((Date.now() - started) / 1000)} s`);
      copyFileSync(join(home.path, 'token'), join(pgHome, 'token'));
    });
    if (!pg.daemon) return { figures: result, skipped: { [PG]: pg.unavailable } };
    let pgEngine;
    try {
      await topUpStats(pg.daemon, sourceId, count, realisticRecord, log, toppedUp);
      pgEngine = await engines.postgres(pg.url, sourceId);
      Object.assign(
        result,
        await measure({
          daemon: pg.daemon,
          engine: pgEngine,
          sourceId,
          count,
          rounds,
          samples,
          floorRuns,
          log,
          suffix: ENGINES[1],
        }),
      );
    } finally {
      await pgEngine?.close();
      await pg.stop();
    }
  } finally {
    home.remove();
  }
  return { figures: result };
}
