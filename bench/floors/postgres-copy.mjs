// The PostgreSQL batch floor: `pg` alone storing batches of records into a Tapline database on
// PostgreSQL (the daemon's schema, made by a daemon started on it first) with COPY, the fastest
// way into PostgreSQL, for `seconds`, in this process. Prints `{"perSecond": n}`.
//   node postgres-copy.mjs <url> <sourceId> <batch.json> <seconds>
// Each batch, in one transaction as the daemon's group commit: the entry (its exchange in its own columns)
// rows by COPY (parsed, redacted and serialized ahead: only the database's work is timed), the
// count rollup as one multi-row upsert and the stream counter, as the daemon keeps them.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { from as copyFrom } from 'pg-copy-streams';
import { level, prepare } from './rows.mjs';

const [url, sourceId, bodyFile, seconds] = process.argv.slice(2);
const daemonRequire = createRequire(join(fileURLToPath(import.meta.url), '../../../packages/daemon/package.json'));
const pg = daemonRequire('pg');
const { v7: newId } = daemonRequire('uuid');
const client = new pg.Client({ connectionString: url });
await client.connect();

/** COPY's text format: tab-separated, `\N` for null, backslash escapes for what would break a line. */
const field = (v) =>
  v === null || v === undefined
    ? '\\N'
    : String(v).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
const lines = (rows) => rows.map((row) => `${row.map(field).join('\t')}\n`).join('');
const copy = (table, columns, rows) =>
  pipeline(Readable.from([lines(rows)]), client.query(copyFrom(`copy ${table} (${columns}) from stdin`)));

const idOf = async (sql, values) => (await client.query(sql, values)).rows[0].id;
const domainIds = new Map();
const pathnameIds = new Map();

async function store(rows) {
  const now = new Date().toISOString();
  await client.query('begin');
  const traffic = [];
  const counts = new Map();
  for (const row of rows) {
    let domainId = domainIds.get(row.host);
    if (!domainId) {
      domainId = await idOf(
        'insert into domains (id, traffic_source_id, value, created_at) values ($1, $2, $3, $4) on conflict (traffic_source_id, value) do update set value = excluded.value returning id',
        [newId(), sourceId, row.host, now],
      );
      domainIds.set(row.host, domainId);
    }
    const pathKey = `${domainId} ${row.pathname}`;
    let pathnameId = pathnameIds.get(pathKey);
    if (!pathnameId) {
      pathnameId = await idOf(
        'insert into pathnames (id, traffic_source_id, domain_id, value, created_at) values ($1, $2, $3, $4, $5) on conflict (domain_id, value) do update set value = excluded.value returning id',
        [newId(), sourceId, domainId, row.pathname, now],
      );
      pathnameIds.set(pathKey, pathnameId);
    }
    const id = newId(); // request and response ids are derived from it (compact storage)
    const lvl = level(row.status);
    // The exchange is the entry's own columns, JSON text on PostgreSQL (compact storage).
    traffic.push([
      id,
      sourceId,
      domainId,
      pathnameId,
      null,
      null,
      row.status,
      row.method,
      lvl,
      row.protocol,
      row.elapsed,
      row.user,
      now,
      row.requestHeaders,
      row.requestBody,
      row.query,
      row.responseHeaders,
      row.responseBody,
    ]);
    const key = `${pathnameId} ${row.method} ${row.status}`;
    const found = counts.get(key);
    if (found) found[6] += 1;
    else counts.set(key, [sourceId, pathnameId, domainId, row.method, row.status, lvl, 1]);
  }
  const sorted = [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, c]) => c);
  await client.query(
    `insert into traffic_counts (traffic_source_id, pathname_id, domain_id, method, status, level, count) values ${sorted.map((_, i) => `(${[1, 2, 3, 4, 5, 6, 7].map((c) => `$${i * 7 + c}`).join(', ')})`).join(', ')}
     on conflict (traffic_source_id, pathname_id, method, status) do update set count = traffic_counts.count + excluded.count`,
    sorted.flat(),
  );
  const {
    rows: [{ value }],
  } = await client.query(
    "insert into stream_sequence (name, value) values ('traffic', $1) on conflict (name) do update set value = stream_sequence.value + excluded.value returning value",
    [rows.length],
  );
  const first = Number(value) - rows.length + 1;
  await copy(
    'http_traffic',
    'id, traffic_source_id, domain_id, pathname_id, request_id, response_id, status, method, level, protocol, elapsed_time, traffic_user_id, created_at, request_headers, request_body, query_params, response_headers, response_body, stream_seq',
    traffic.map((t, i) => [...t, first + i]),
  );
  await client.query('commit');
}

const ready = prepare(JSON.parse(readFileSync(bodyFile, 'utf8')));
const until = performance.now() + Number(seconds) * 1000;
const started = performance.now();
let stored = 0;
while (performance.now() < until) {
  await store(ready);
  stored += ready.length;
}
await client.end();
process.stdout.write(JSON.stringify({ perSecond: stored / ((performance.now() - started) / 1000) }));
