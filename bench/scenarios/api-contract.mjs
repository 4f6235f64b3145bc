// Issue 28: `tapline api infer` over 100,000 stored entries in 50 routes, and `api check` of the
// same entries against a 50-operation spec (the inferred document itself), against the floor of
// reading the same rows' bodies straight from the database in the same run: better-sqlite3
// selecting the two body columns of the source, inflating them as the daemon stores them
// (bench/payload-format.mjs), and parsing the JSON (inference cannot do less). Entries are the test
// kit's realistic records (1.4-1.7 KB as posted) sent through the batch endpoint, each under a
// route template of its own method (50 in all: one operation each). The daemon's resident set is
// sampled every 50 ms during each pass. Targets: infer <= 5 s and <= 200 MB, check <= 10 s.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { api, createSource, KEEP_EVERYTHING, rssMiB, startDaemon } from '../lib.mjs';
import { figure, interleave, pluck, versus } from '../figures.mjs';
import { storedId } from '../payload-format.mjs';
import { loadRealisticRecord } from '../ts.mjs';

const ROUTES_BY_METHOD = { GET: 17, POST: 17, PATCH: 8, DELETE: 8 };
const DISTINCT = 5_000;
const BATCH = 1_000;
const READ = 'bodies read + inflated';
const PARSED = 'bodies read + inflated + parsed';

export const figures = [
  'entries',
  'operations in the spec',
  'infer s',
  'check s',
  `floor: ${READ} s`,
  `floor: ${PARSED} s`,
  'daemon peak RSS MiB during infer',
  'daemon peak RSS MiB during check',
  'daemon RSS MiB before the passes',
];

/** The realistic record of `seed`, moved to one of its method's routes (`/api/v1/get-3/items/{itemId}`). */
function routed(record, seed) {
  const routes = ROUTES_BY_METHOD[record.method];
  const k = seed % routes;
  const route = `/api/v1/${record.method.toLowerCase()}-${k}/items/{itemId}`;
  return { ...record, route, pathnameUrl: route.replace('{itemId}', String(1000 + (seed % 9000))) };
}

async function seedEntries(daemon, sourceId, count, realisticRecord, log) {
  const distinct = Array.from({ length: Math.min(DISTINCT, count) }, (_, i) => routed(realisticRecord(i, sourceId), i));
  for (let done = 0; done < count; done += BATCH) {
    const body = JSON.stringify(
      Array.from({ length: Math.min(BATCH, count - done) }, (_, i) => distinct[(done + i) % distinct.length]),
    );
    const response = await fetch(`${daemon.url}/http-traffic-record/${sourceId}/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
      body,
    });
    if (response.status !== 201) throw new Error(`batch answered ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
    if ((done / BATCH) % 20 === 19) log(`seeded ${(done + BATCH).toLocaleString('en')} entries`);
  }
}

/** The floor: every body of the source, read and inflated (as payload.ts decodes), optionally parsed. */
export function readBodies(sqlite, sourceId, parse) {
  const dictionaries = new Map(
    sqlite
      .prepare('select id, data from payload_dictionaries')
      .all()
      .map((d) => [d.id, d.data]),
  );
  const decode = (value) => {
    if (value === null || typeof value === 'string') return value;
    let id = 0;
    let offset = 0;
    for (let scale = 1; ; scale *= 128) {
      const byte = value[offset++];
      id += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) break;
    }
    const options = id === 0 ? { windowBits: 13 } : { windowBits: 13, dictionary: dictionaries.get(id) };
    return inflateRawSync(value.subarray(offset), options).toString('utf8');
  };
  let rows = 0;
  for (const row of sqlite
    .prepare('select request_body, response_body from http_traffic where traffic_source_id = ?')
    .iterate(storedId(sourceId))) {
    const request = decode(row.request_body);
    const response = decode(row.response_body);
    if (parse) (request === null || JSON.parse(request), response === null || JSON.parse(response));
    rows += 1;
  }
  return rows;
}

/** Seconds of `call`, and the peak resident set of `pid` meanwhile. */
async function timed(pid, call) {
  let peak = rssMiB(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 50);
  const started = process.hrtime.bigint();
  try {
    const value = await call();
    return { seconds: Number(process.hrtime.bigint() - started) / 1e9, peak: Math.max(peak, rssMiB(pid)), value };
  } finally {
    clearInterval(timer);
  }
}

export default async function run({ root, log, quick, tmp }) {
  const [count, rounds] = quick
    ? [2_000, 1]
    : [Number(process.env.BENCH_API_CONTRACT_ENTRIES ?? 100_000), Number(process.env.BENCH_API_CONTRACT_ROUNDS ?? 3)];
  const home = tmp();
  const daemon = await startDaemon(root, home.path, KEEP_EVERYTHING);
  const Database = createRequire(join(root, 'packages', 'daemon', 'package.json'))('better-sqlite3');
  let sqlite;
  try {
    const source = await createSource(daemon.url, daemon.token, 'bench');
    log(`seeding ${count.toLocaleString('en')} entries in 50 routes through the batch endpoint`);
    await seedEntries(daemon, source.id, count, await loadRealisticRecord(root), log);
    sqlite = new Database(join(home.path, 'tapline.db'), { readonly: true });
    const pid = daemon.child.pid;
    const before = rssMiB(pid);
    // Both sides warm before the rounds (the file in the OS's cache, each connection's own pages,
    // the JIT): the daemon by inferring the spec, the floor by one read.
    const spec = await api(daemon.url, daemon.token, 'GET', `/api-contract/${source.id}/openapi`);
    readBodies(sqlite, source.id, true);
    const operations = Object.values(spec.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    if (spec['x-tapline'].entries !== count || operations !== 50)
      throw new Error(
        `the inferred document has ${spec['x-tapline'].entries} entries and ${operations} operations, not ${count} and 50`,
      );
    const values = await interleave(
      rounds,
      [
        [READ, () => timed(pid, async () => readBodies(sqlite, source.id, false))],
        [PARSED, () => timed(pid, async () => readBodies(sqlite, source.id, true))],
        ['infer', () => timed(pid, () => api(daemon.url, daemon.token, 'GET', `/api-contract/${source.id}/openapi`))],
        [
          'check',
          () => timed(pid, () => api(daemon.url, daemon.token, 'POST', `/api-contract/${source.id}/check`, { spec })),
        ],
      ].map(([name, step]) => [
        name,
        async () => {
          const { seconds, peak, value } = await step();
          if (name === 'check' && value.exchanges !== count)
            throw new Error(`check read ${value.exchanges} exchanges, not ${count}`);
          if ((name === READ || name === PARSED) && value !== count)
            throw new Error(`the floor read ${value} rows, not ${count}`);
          return { seconds, peak };
        },
      ]),
      log,
    );
    const floors = { [READ]: pluck(values[READ], 'seconds'), [PARSED]: pluck(values[PARSED], 'seconds') };
    return {
      figures: {
        entries: figure('entries', [count]),
        'operations in the spec': figure('operations', [operations]),
        'infer s': versus('s', pluck(values.infer, 'seconds'), floors),
        'check s': versus('s', pluck(values.check, 'seconds'), floors),
        [`floor: ${READ} s`]: figure('s', floors[READ]),
        [`floor: ${PARSED} s`]: figure('s', floors[PARSED]),
        'daemon peak RSS MiB during infer': figure('MiB', pluck(values.infer, 'peak')),
        'daemon peak RSS MiB during check': figure('MiB', pluck(values.check, 'peak')),
        'daemon RSS MiB before the passes': figure('MiB', [before]),
      },
    };
  } finally {
    sqlite?.close();
    await daemon.stop();
    home.remove();
  }
}
