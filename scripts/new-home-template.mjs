// `node scripts/new-home-template.mjs FILE`, run by the daemon's build: writes the new home that a
// first start copies (db/migrations/new-home.ts, copyNewHome) to FILE, packages/daemon/dist/new-home.db.
// It is made by the daemon's own code, as a first start without it would make one: openSqlite on
// a new file (incremental auto-vacuum, WAL), the schema (startFromSchema), then any migration the
// schema does not hold yet, and closed, so that its WAL is checkpointed into it and removed.
import { chmodSync, copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
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
const dir = mkdtempSync(join(tmpdir(), 'tapline-new-home-'));
try {
  const file = join(dir, 'new-home.db');
  const opened = openSqlite(file, { newHome: () => undefined, checkpointWorker: () => undefined });
  await opened.migrate();
  await opened.close();
  for (const left of [`${file}-wal`, `${file}-journal`])
    if (existsSync(left)) throw new Error(`${left} was left beside the new home: it would not be whole`);
  copyFileSync(file, resolve(target));
  chmodSync(resolve(target), 0o644); // nothing in it is secret; each home's copy is owner-only
} finally {
  rmSync(dir, { recursive: true, force: true });
}
