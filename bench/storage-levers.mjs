// `node bench/storage-levers.mjs [records]`: what each compact-storage lever of issue 14 would save,
// measured on a real database rather than guessed. It fills a daemon with realistic records
// (bench/realistic.mjs), then rewrites copies of the file, one lever at a time and all together,
// and prints bytes per record of each copy after a VACUUM. The copies are scratch: no daemon reads
// them. Compact storage (compression, one row a record, the index diet, 16-byte ids) is built;
// these are the levers measured and not taken (docs/storage.md).
import { copyFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSource, KEEP_EVERYTHING, startDaemon, tempHome } from './lib.mjs';
import { realisticRecord } from './realistic.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const RECORDS = Number(process.argv[2] ?? 20_000);
const Database = createRequire(join(root, 'packages', 'daemon', 'package.json'))('better-sqlite3');
const home = tempHome();
const file = join(home.path, 'tapline.db');
let json = 0;
const daemon = await startDaemon(root, home.path, KEEP_EVERYTHING);
try {
  const source = await createSource(daemon.url, daemon.token, 'levers');
  for (let done = 0; done < RECORDS; done += 500) {
    const records = Array.from({ length: 500 }, (_, i) => realisticRecord(source.id, done + i));
    for (const r of records) json += JSON.stringify(r).length;
    const res = await fetch(`${daemon.url}/http-traffic-record/${source.id}/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(records),
    });
    if (res.status !== 201) throw new Error(`batch answered ${res.status}`);
    await res.arrayBuffer();
  }
} finally {
  await daemon.stop();
}

const LEVERS = {
  integerCreatedAt(db) {
    // The column is declared text, whose affinity stores a bound integer as its digits (13 bytes,
    // not 6): the figure is what the daemon would get without rebuilding the table.
    db.exec('update http_traffic set created_at = cast((julianday(created_at) - 2440587.5) * 86400000 as integer)');
  },
  nameKeys(db) {
    // Domains and pathnames referenced by their rowid (a small integer) instead of their text id.
    db.pragma('foreign_keys = off');
    db.exec(
      'update http_traffic set domain_id = (select rowid from domains d where d.id = http_traffic.domain_id), pathname_id = (select rowid from pathnames p where p.id = http_traffic.pathname_id)',
    );
  },
};

function measure(name, apply) {
  const copy = join(home.path, `${name}.db`);
  copyFileSync(file, copy);
  const db = new Database(copy);
  db.pragma('journal_mode = delete');
  apply(db);
  db.exec('vacuum');
  db.close();
  const bytes = statSync(copy).size / RECORDS;
  process.stdout.write(
    `${name.padEnd(34)} ${Math.round(bytes).toString().padStart(5)} B/record  ${(bytes / (json / RECORDS)).toFixed(2)} x the JSON\n`,
  );
}

process.stdout.write(`${RECORDS} records, ${Math.round(json / RECORDS)} B of JSON each\n`);
measure('as stored today', () => {});
measure('domains and pathnames by integer key', LEVERS.nameKeys);
measure('created_at as integer ms', LEVERS.integerCreatedAt);
measure('both', (db) => {
  LEVERS.nameKeys(db);
  LEVERS.integerCreatedAt(db);
});
home.remove();
