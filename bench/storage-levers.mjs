// `node bench/storage-levers.mjs [records]`: what each compact-storage lever of issue 14 would save,
// measured on a real database rather than guessed. It fills a daemon with realistic records
// (bench/realistic.mjs), then rewrites copies of the file, one lever at a time and all together,
// and prints bytes per record of each copy after a VACUUM. The copies are scratch: no daemon reads
// them (the filters over compressed bodies, and the migration, are the work still to do).
import { copyFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateRawSync } from 'node:zlib';
import { createSource, startDaemon, tempHome } from './lib.mjs';
import { realisticRecord } from './realistic.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const RECORDS = Number(process.argv[2] ?? 20_000);
const Database = createRequire(join(root, 'packages', 'daemon', 'package.json'))('better-sqlite3');
const home = tempHome();
const file = join(home.path, 'tapline.db');
let json = 0;
const daemon = await startDaemon(root, home.path, ['--retention', 'off', '--max-db-size', 'off']);
try {
  const source = await createSource(daemon.url, daemon.token, 'levers');
  for (let done = 0; done < RECORDS; done += 500) {
    const records = Array.from({ length: 500 }, (_, i) => realisticRecord(source.id, done + i));
    for (const r of records) json += JSON.stringify(r).length;
    const res = await fetch(`${daemon.url}/http-traffic-record/${source.id}/batch`, { method: 'POST', headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' }, body: JSON.stringify(records) });
    if (res.status !== 201) throw new Error(`batch answered ${res.status}`);
    await res.arrayBuffer();
  }
} finally {
  await daemon.stop();
}

/** A preset dictionary: the JSON of the first records' header sets and bodies, most recent last (zlib weighs the end most). */
function dictionary(db) {
  const rows = db.prepare('select r.headers as a, r.body as b, s.headers as c, s.body as d from requests r join responses s on s.rowid = r.rowid limit 200').all();
  return Buffer.from(rows.map((r) => [r.a, r.b, r.c, r.d].filter(Boolean).join('')).join('').slice(-32_768));
}

const LEVERS = {
  compress(db, dict) {
    // deflate-raw, with the preset dictionary when given; values under 64 bytes stay text.
    const pack = (text) => (text === null || text.length < 64 ? text : deflateRawSync(Buffer.from(text), dict ? { dictionary: dict, level: 9 } : { level: 9 }));
    for (const [table, columns] of [['requests', ['headers', 'body', 'query_params']], ['responses', ['headers', 'body']]]) {
      const rows = db.prepare(`select rowid, ${columns.join(', ')} from ${table}`).all();
      const update = db.prepare(`update ${table} set ${columns.map((c) => `${c} = ?`).join(', ')} where rowid = ?`);
      db.transaction(() => rows.forEach((row) => update.run(...columns.map((c) => pack(row[c])), row.rowid)))();
    }
  },
  dropFilterIndexes(db) {
    // Level, status and method filters would walk the newest-first index (it carries the three columns).
    for (const name of ['http_traffic_source_level', 'http_traffic_source_status', 'http_traffic_source_method']) db.exec(`drop index ${name}`);
  },
  fold(db, dict) {
    // The request and response rows folded into the entry: their payload columns move into
    // http_traffic (compressed when `dict` is given), their tables and indexes go.
    const pack = (text) => (dict === undefined || text === null || text.length < 64 ? text : deflateRawSync(Buffer.from(text), { dictionary: dict, level: 6 }));
    const columns = ['request_headers', 'request_body', 'query_params', 'response_headers', 'response_body'];
    for (const c of columns) db.exec(`alter table http_traffic add column ${c} text`);
    const rows = db.prepare('select t.rowid as k, r.headers as a, r.body as b, r.query_params as c, s.headers as d, s.body as e from http_traffic t join requests r on r.id = t.request_id join responses s on s.id = t.response_id').all();
    const update = db.prepare(`update http_traffic set ${columns.map((c) => `${c} = ?`).join(', ')} where rowid = ?`);
    db.transaction(() => rows.forEach((r) => update.run(pack(r.a), pack(r.b), pack(r.c), pack(r.d), pack(r.e), r.k)))();
    db.pragma('foreign_keys = off');
    db.exec('drop table requests; drop table responses');
  },
  dropFoldedIndexes(db) {
    // What a folded schema can do without: the per-column filter indexes (the newest-first index carries the columns).
    for (const name of ['http_traffic_source_level', 'http_traffic_source_status', 'http_traffic_source_method']) db.exec(`drop index if exists ${name}`);
  },
  binaryIds(db) {
    const blob = (c) => `unhex(replace(${c}, '-', ''))`;
    db.pragma('foreign_keys = off');
    const ids = { http_traffic: ['id', 'traffic_source_id', 'domain_id', 'pathname_id', 'request_id', 'response_id'], requests: ['id', 'traffic_source_id'], responses: ['id', 'traffic_source_id'], traffic_counts: ['traffic_source_id', 'pathname_id', 'domain_id'], pathnames: ['id', 'traffic_source_id', 'domain_id'] };
    for (const [table, columns] of Object.entries(ids)) db.exec(`update ${table} set ${columns.map((c) => `${c} = ${blob(c)}`).join(', ')}`);
  },
};

function measure(name, apply) {
  const copy = join(home.path, `${name}.db`);
  copyFileSync(file, copy);
  const db = new Database(copy);
  db.pragma('journal_mode = delete');
  const dict = dictionary(db);
  apply(db, dict);
  db.exec('vacuum');
  db.close();
  const bytes = statSync(copy).size / RECORDS;
  process.stdout.write(`${name.padEnd(34)} ${Math.round(bytes).toString().padStart(5)} B/record  ${(bytes / (json / RECORDS)).toFixed(2)} x the JSON\n`);
}

process.stdout.write(`${RECORDS} records, ${Math.round(json / RECORDS)} B of JSON each\n`);
measure('as stored today', () => {});
measure('compressed (deflate)', (db) => LEVERS.compress(db, null));
measure('compressed (deflate + dictionary)', (db, dict) => LEVERS.compress(db, dict));
measure('three filter indexes dropped', LEVERS.dropFilterIndexes);
measure('binary ids', LEVERS.binaryIds);
measure('all three (dictionary)', (db, dict) => {
  LEVERS.compress(db, dict);
  LEVERS.dropFilterIndexes(db);
  LEVERS.binaryIds(db);
});
measure('folded (text)', (db) => LEVERS.fold(db, undefined));
measure('folded, deflate + dictionary', (db, dict) => LEVERS.fold(db, dict));
measure('folded, dictionary, 3 indexes dropped', (db, dict) => {
  LEVERS.fold(db, dict);
  LEVERS.dropFilterIndexes(db);
});
const show = (db) => process.stdout.write(db.prepare("select name, sum(pgsize) as b from dbstat group by name order by b desc limit 12").all().map((p) => `  ${p.name} ${Math.round(p.b / RECORDS)}`).join('\n') + '\n');
measure('folded+dict+3 dropped (parts)', (db, dict) => {
  LEVERS.fold(db, dict);
  LEVERS.dropFilterIndexes(db);
  db.exec('vacuum');
  show(db);
});
home.remove();
