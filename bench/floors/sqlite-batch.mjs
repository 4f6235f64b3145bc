// The batch floors: better-sqlite3 alone storing batches of records into a Tapline database (the
// daemon's schema and pragmas), for `seconds`, in this process. Prints `{"perSecond": n}`.
//   node sqlite-batch.mjs insert <db> <sourceId> <batch.json> <seconds>
//     the rows the daemon would write (entry with its compressed exchange, count rollup), already
//     parsed, redacted and serialized: only compression, the inserts and the commit per batch are timed.
//   node sqlite-batch.mjs parse <db> <sourceId> <batch.json> <seconds>
//     the same, plus JSON.parse of the body, redaction and serialization per batch: what any
//     ingest must do, with no framework, validation or worker thread.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodePayload, storedId, trainDictionary } from '../payload-format.mjs';
import { level, prepare } from './rows.mjs';

const [mode, dbFile, sourceText, bodyFile, seconds] = process.argv.slice(2);
// Ids as the daemon stores them on SQLite: 16 bytes.
const sourceId = storedId(sourceText);
const daemonRequire = createRequire(join(fileURLToPath(import.meta.url), '../../../packages/daemon/package.json'));
const Database = daemonRequire('better-sqlite3');
// The daemon's ids: time-ordered UUIDv7, which append to the primary-key index (random v4 ids would
// split pages all over it and make the floor slower than the daemon).
const { v7 } = daemonRequire('uuid');
const newId = () => storedId(v7());
const db = new Database(dbFile);
for (const pragma of [
  'journal_mode = WAL',
  'synchronous = NORMAL',
  'foreign_keys = ON',
  'wal_autocheckpoint = 10000',
  'cache_size = -65536',
])
  db.pragma(pragma);

const insert = {
  domain: db.prepare('insert into domains (id, traffic_source_id, value, created_at) values (?, ?, ?, ?)'),
  pathname: db.prepare(
    'insert into pathnames (id, traffic_source_id, domain_id, value, created_at) values (?, ?, ?, ?, ?)',
  ),
  traffic: db.prepare(
    `insert into http_traffic (id, traffic_source_id, domain_id, pathname_id, request_id, response_id, status, method, level, protocol, elapsed_time, traffic_user_id, created_at, stream_seq,
      request_headers, request_body, query_params, response_headers, response_body) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ),
  // As the daemon numbers a transaction's entries for the stream: one counter update per transaction.
  seq: db.prepare(
    "insert into stream_sequence (name, value) values ('traffic', ?) on conflict (name) do update set value = value + excluded.value returning value",
  ),
  count: db.prepare(
    'insert into traffic_counts (traffic_source_id, pathname_id, domain_id, method, status, level, count) values (?, ?, ?, ?, ?, ?, ?) on conflict (traffic_source_id, pathname_id, method, status) do update set count = count + excluded.count',
  ),
};
// Names a previous run of this floor filed, known up front as the daemon's id cache knows them.
const domainIds = new Map(db.prepare('select value, id from domains where traffic_source_id = ?').raw().all(sourceId));
const pathnameIds = new Map(
  db
    .prepare(
      "select d.value || ' ' || p.value, p.id from pathnames p join domains d on d.id = p.domain_id where p.traffic_source_id = ?",
    )
    .raw()
    .all(sourceId),
);

const store = db.transaction((rows) => {
  const now = new Date().toISOString();
  const counts = new Map();
  let seq = Number(insert.seq.get(rows.length).value) - rows.length;
  for (const row of rows) {
    let domainId = domainIds.get(row.host);
    if (!domainId)
      (insert.domain.run((domainId = newId()), sourceId, row.host, now), domainIds.set(row.host, domainId));
    const pathKey = `${row.host} ${row.pathname}`;
    let pathnameId = pathnameIds.get(pathKey);
    if (!pathnameId)
      (insert.pathname.run((pathnameId = newId()), sourceId, domainId, row.pathname, now),
        pathnameIds.set(pathKey, pathnameId));
    const id = newId(); // request and response ids are derived from it (compact storage)
    const lvl = level(row.status);
    // Compressed as the daemon stores them (compact storage): the floor does the same work.
    const pack = (text) => encodePayload(text, dictionary);
    insert.traffic.run(
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
      ++seq,
      pack(row.requestHeaders),
      pack(row.requestBody),
      pack(row.query),
      pack(row.responseHeaders),
      pack(row.responseBody),
    );
    const key = `${pathKey} ${row.method} ${row.status}`;
    const found = counts.get(key);
    if (found) found[6] += 1;
    else counts.set(key, [sourceId, pathnameId, domainId, row.method, row.status, lvl, 1]);
  }
  for (const count of counts.values()) insert.count.run(...count);
});

const text = readFileSync(bodyFile, 'utf8');
const ready = prepare(JSON.parse(text));
// The source's dictionary, trained once as the daemon trains it on a source's first records.
const dictionary = {
  id: 1,
  data: trainDictionary(
    ready
      .slice(0, 20)
      .flatMap((r) => [r.requestHeaders, r.requestBody, r.query, r.responseHeaders, r.responseBody].filter(Boolean)),
  ),
};
const until = performance.now() + Number(seconds) * 1000;
const started = performance.now();
let stored = 0;
while (performance.now() < until) {
  store(mode === 'parse' ? prepare(JSON.parse(text)) : ready);
  stored += ready.length;
}
db.close();
process.stdout.write(JSON.stringify({ perSecond: stored / ((performance.now() - started) / 1000) }));
