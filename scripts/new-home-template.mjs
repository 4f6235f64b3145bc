// `node scripts/new-home-template.mjs FILE`, run by the daemon's build: writes the new home that a
// first start copies (db/migrations/new-home.ts, copyNewHome) to FILE,
// packages/daemon/dist/new-home.db. It is made by the daemon's own code, as a first start
// without it would make one: openSqlite on a new file (incremental auto-vacuum, WAL), the schema
// (startFromSchema), then any migration the schema does not hold yet, and closed, so that its WAL
// is checkpointed into it and removed. Its migrations are recorded at TEMPLATE_TIME, which a copy
// replaces with its own first start's time; so every build of the same code writes the same bytes.
import { chmodSync, copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { importTs } from '../bench/ts.mjs';

const [target] = process.argv.slice(2);
if (!target) {
  process.stderr.write('usage: node scripts/new-home-template.mjs FILE\n');
  process.exit(2);
}
const root = join(import.meta.dirname, '..');
const { openSqlite } = await importTs(root, 'packages/daemon/src/db/sqlite.ts');
const { TEMPLATE_TIME } = await importTs(root, 'packages/daemon/src/db/migrations/new-home.ts');
const Database = createRequire(join(root, 'packages/daemon/package.json'))('better-sqlite3');
const dir = mkdtempSync(join(tmpdir(), 'tapline-new-home-'));
try {
  const file = join(dir, 'new-home.db');
  const opened = openSqlite(file, { newHome: () => undefined, checkpointWorker: () => undefined });
  await opened.migrate();
  await opened.close();
  const db = new Database(file);
  db.prepare('update kysely_migration set timestamp = ?').run(TEMPLATE_TIME);
  const check = db.pragma('integrity_check', { simple: true });
  db.close();
  if (check !== 'ok') throw new Error(`the new home fails SQLite's integrity check: ${check}`);
  for (const left of [`${file}-wal`, `${file}-journal`])
    if (existsSync(left)) throw new Error(`${left} was left beside the new home: it would not be whole`);
  copyFileSync(file, resolve(target));
  chmodSync(resolve(target), 0o644); // nothing in it is secret; each home's copy is owner-only
} finally {
  rmSync(dir, { recursive: true, force: true });
}
