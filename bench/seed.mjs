// Fills a Tapline database with `count` realistic traffic rows straight through SQLite, for the
// list benchmark (composing a million records over HTTP would take minutes). The schema comes
// from the daemon itself: the caller starts and stops it once on the file first. Entries carry
// realistic records' headers and bodies (`payloads`, used in turn, compressed), so the
// database has a real one's size and the page cache a real one's pressure.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { encodePayload, storedId, trainDictionary } from './payload-format.mjs';

const STATUSES = [
  [200, 0.78],
  [201, 0.08],
  [204, 0.02],
  [400, 0.03],
  [404, 0.04],
  [500, 0.02],
  [503, 0.03],
];
const METHODS = [
  ['GET', 0.6],
  ['POST', 0.25],
  ['PUT', 0.07],
  ['DELETE', 0.05],
  ['PATCH', 0.03],
];

function pick(table, r) {
  let acc = 0;
  for (const [value, p] of table) if (r < (acc += p)) return value;
  return table[table.length - 1][0];
}

/** UUIDv7 for a given millisecond, so ids sort with created_at as the daemon's do. */
function uuidv7(ms) {
  const hex = ms.toString(16).padStart(12, '0');
  const rand = randomUUID().replace(/-/g, '');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${rand.slice(13, 16)}-${((parseInt(rand[16], 16) & 3) | 8).toString(16)}${rand.slice(17, 20)}-${rand.slice(20, 32)}`;
}

export function seed(root, dbFile, sourceId, count, payloads, log) {
  const require = createRequire(join(root, 'packages', 'daemon', 'package.json'));
  const Database = require('better-sqlite3');
  const db = new Database(dbFile);
  const source = storedId(sourceId);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const now = Date.now();
  const span = 30 * 24 * 3600 * 1000;
  const iso = (ms) => new Date(ms).toISOString();

  const domains = [
    'shop.example.com',
    'api.example.com',
    'cdn.example.com',
    'auth.example.com',
    'admin.example.com',
  ].map((value) => ({ id: uuidv7(now - span), value }));
  const pathnames = [];
  for (const d of domains)
    for (let i = 0; i < 20; i++)
      pathnames.push({ id: uuidv7(now - span), domainId: d.id, value: `/api/v1/resource-${i}` });

  const insertDomain = db.prepare('insert into domains (id, traffic_source_id, value, created_at) values (?, ?, ?, ?)');
  const insertPath = db.prepare(
    'insert into pathnames (id, traffic_source_id, domain_id, value, created_at) values (?, ?, ?, ?, ?)',
  );
  const insertTraffic = db.prepare(
    `insert into http_traffic (id, traffic_source_id, domain_id, pathname_id, request_id, response_id, status, method, level, protocol, elapsed_time, traffic_user_id, created_at, stream_seq,
      request_headers, request_body, query_params, response_headers, response_body) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // Stored as the daemon stores them (compressed with the source's dictionary), so the table has a real one's size.
  const dictionary = {
    id: 1 + Number(db.prepare('select coalesce(max(id), 0) as n from payload_dictionaries').get().n),
    data: trainDictionary(
      payloads
        .slice(0, 20)
        .flatMap((p) => [p.requestHeaders, p.requestBody, p.queryParams, p.responseHeaders, p.responseBody]),
    ),
  };
  db.prepare('insert into payload_dictionaries (id, traffic_source_id, data, created_at) values (?, ?, ?, ?)').run(
    dictionary.id,
    source,
    dictionary.data,
    iso(now),
  );
  const stored = payloads.map((p) =>
    Object.fromEntries(Object.entries(p).map(([k, v]) => [k, encodePayload(v, dictionary)])),
  );
  // Stream numbers continue the database's counter (docs/decisions.md §9.7), which is moved past them at the end.
  const firstSeq = Number(db.prepare('select coalesce(max(value), 0) as n from stream_sequence').get().n) + 1;
  db.transaction(() => {
    for (const d of domains) insertDomain.run(storedId(d.id), source, d.value, iso(now - span));
    for (const p of pathnames) insertPath.run(storedId(p.id), source, storedId(p.domainId), p.value, iso(now - span));
  })();

  const batch = 50_000;
  for (let done = 0; done < count; done += batch) {
    db.transaction(() => {
      for (let i = done; i < Math.min(count, done + batch); i++) {
        const ms = now - span + Math.floor((i / count) * span);
        const status = pick(STATUSES, Math.random());
        const method = pick(METHODS, Math.random());
        const path = pathnames[Math.floor(Math.random() * pathnames.length)];
        const level = status >= 500 ? 'FATAL' : status >= 400 ? 'WARNING' : 'INFO';
        const ids = [uuidv7(ms)];
        const p = stored[i % stored.length];
        insertTraffic.run(
          storedId(ids[0]),
          source,
          storedId(path.domainId),
          storedId(path.id),
          null,
          null,
          status,
          method,
          level,
          'HTTPS',
          Math.round(Math.random() * 800 * 10) / 10,
          null,
          iso(ms),
          firstSeq + i,
          p.requestHeaders,
          method === 'GET' ? null : p.requestBody,
          p.queryParams,
          p.responseHeaders,
          p.responseBody,
        );
      }
    })();
    log(`seeded ${Math.min(count, done + batch).toLocaleString('en')} rows`);
  }
  db.prepare(
    "insert into stream_sequence (name, value) values ('traffic', ?) on conflict (name) do update set value = excluded.value",
  ).run(firstSeq + count - 1);
  // The daemon keeps this rollup in its ingest transaction; rows written here bypass it.
  db.prepare(
    `insert into traffic_counts (traffic_source_id, pathname_id, domain_id, method, status, level, count)
    select traffic_source_id, pathname_id, domain_id, method, status, level, count(*) from http_traffic
    where traffic_source_id = ? group by traffic_source_id, pathname_id, domain_id, method, status, level`,
  ).run(source);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.exec('analyze');
  db.close();
  return { pathnames, domains, now, span };
}
