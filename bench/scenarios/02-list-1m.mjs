// The first page of a filtered list on 1,000,000 realistic records, against its floor in the same
// run: the statements the daemon's own repository runs for that query (bench/list-sql.ts), run
// directly in better-sqlite3 in this process. Each round times, per query, a run of SQL floors
// then a run of HTTP requests (node:http, one keep-alive connection); the figure is each run's
// p50. Target (issue 17): at most 0.5 ms above the repository's own SQL at p50.
import { createRequire } from 'node:module';
import { Agent, get } from 'node:http';
import { join } from 'node:path';
import { createSource, KEEP_EVERYTHING, startDaemon } from '../lib.mjs';
import { figure, interleave, median, versus } from '../figures.mjs';
import { seed } from '../seed.mjs';
import { importTs, loadRealisticRecord } from '../ts.mjs';

const QUERIES = {
  'level=FATAL': () => 'level=FATAL',
  'status=503': () => 'status=503',
  'status=5xx': () => 'status=5xx',
  'method=DELETE&level=WARNING': () => 'method=DELETE&level=WARNING',
  pathnameId: ({ pathnames }) => `pathnameId=${pathnames[7].id}`,
  'one day': ({ now }) =>
    `startDate=${new Date(now - 3 * 86_400_000).toISOString()}&endDate=${new Date(now - 2 * 86_400_000).toISOString()}`,
};
export const figures = Object.keys(QUERIES)
  .flatMap((q) => [`first page ${q} p50 ms`, `first page ${q} above SQL ms`, `SQL floor ${q} p50 ms`])
  .concat('records');

const elapsedMs = (started) => Number(process.hrtime.bigint() - started) / 1e6;

/**
 * One GET on the kept-alive socket. A socket idle past the daemon's keep-alive timeout (5 s; the
 * SQL steps between two HTTP steps can take that long) may be closed just as it is reused: that
 * GET is sent again on a new socket, as Node's documentation advises for idempotent requests.
 */
function httpGet(agent, url, token) {
  return new Promise((resolve, reject) => {
    const req = get(url, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on('end', () =>
        res.statusCode === 200 ? resolve() : reject(new Error(`GET ${url} answered ${res.statusCode}`)),
      );
    });
    req.on('error', (error) =>
      req.reusedSocket && error.code === 'ECONNRESET'
        ? httpGet(agent, url, token).then(resolve, reject)
        : reject(error),
    );
  });
}

async function p50Of(samples, once) {
  const times = [];
  for (let i = 0; i < samples; i++) {
    const started = process.hrtime.bigint();
    await once();
    times.push(elapsedMs(started));
  }
  return median(times);
}

export default async function run({ root, log, quick, tmp }) {
  const [count, rounds, samples] = quick ? [20_000, 1, 10] : [1_000_000, 5, 100];
  const home = tmp();
  const dbFile = join(home.path, 'tapline.db');
  let daemon = await startDaemon(root, home.path, KEEP_EVERYTHING);
  const source = await createSource(daemon.url, daemon.token, 'bench');
  await daemon.stop();
  const realisticRecord = await loadRealisticRecord(root);
  const payloads = Array.from({ length: 1000 }, (_, s) => {
    const r = realisticRecord(s, source.id);
    return {
      requestHeaders: JSON.stringify(r.requestHeaders),
      requestBody: JSON.stringify(r.requestBody),
      queryParams: JSON.stringify(r.queryParams),
      responseHeaders: JSON.stringify(r.responseHeaders),
      responseBody: JSON.stringify(r.responseBody),
    };
  });
  log(`seeding ${count.toLocaleString('en')} records`);
  const seeded = seed(root, dbFile, source.id, count, payloads, log);
  const { listStatements } = await importTs(root, 'bench/list-sql.ts');
  const Database = createRequire(join(root, 'packages', 'daemon', 'package.json'))('better-sqlite3');
  const sqlite = new Database(dbFile, { readonly: true });
  sqlite.pragma('cache_size = -65536');
  daemon = await startDaemon(root, home.path, KEEP_EVERYTHING);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const steps = [];
    for (const [name, query] of Object.entries(QUERIES)) {
      const search = query(seeded);
      const statements = (await listStatements(dbFile, source.id, search)).map(({ sql, parameters }) => ({
        statement: sqlite.prepare(sql),
        parameters,
      }));
      // A count and a page: fewer would mean the floor skipped part of the daemon's work.
      if (statements.length < 2) throw new Error(`the repository ran ${statements.length} statement(s) for ${search}`);
      const url = `${daemon.url}/http-traffic/${source.id}?${search}`;
      const runSql = () => statements.forEach(({ statement, parameters }) => statement.all(...parameters));
      for (let i = 0; i < 20; i++) (runSql(), await httpGet(agent, url, daemon.token)); // warm the page cache and both paths
      steps.push(
        [`sql ${name}`, () => p50Of(samples, async () => runSql())],
        [name, () => p50Of(samples, () => httpGet(agent, url, daemon.token))],
      );
    }
    const values = await interleave(rounds, steps, log);
    const result = { records: figure('records', [count]) };
    for (const name of Object.keys(QUERIES)) {
      const http = values[name];
      const sql = values[`sql ${name}`];
      result[`first page ${name} p50 ms`] = versus('ms', http, { 'repository SQL in better-sqlite3': sql });
      result[`first page ${name} above SQL ms`] = figure(
        'ms',
        http.map((ms, i) => ms - sql[i]),
      );
      result[`SQL floor ${name} p50 ms`] = figure('ms', sql);
    }
    return { figures: result };
  } finally {
    agent.destroy();
    sqlite.close();
    await daemon.stop();
    home.remove();
  }
}
