import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { build } from 'esbuild';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKPOINT_DELAY_MS, type Checkpointer, createCheckpointer } from './checkpointer.js';
import { storageOps } from '../retention/storage.js';
import { openSqlite } from './sqlite.js';

/** The frames in the WAL, read by a checkpoint that copies nothing a concurrent writer needs. */
const walFrames = (db: Database.Database): number =>
  (db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]?.log ?? Number.NaN;

/** Waits until `done` or fails after two seconds. */
async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done(); waited += 10) {
    if (waited > 2_000) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the checkpoint thread', () => {
  let folder: string;
  let worker: URL;
  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'tapline-checkpoint-'));
    // A worker thread cannot load TypeScript: the thread bundled as the build does, better-sqlite3 kept the package's own.
    const addon = createRequire(import.meta.url).resolve('better-sqlite3');
    await build({
      entryPoints: [fileURLToPath(new URL('./checkpoint-thread.ts', import.meta.url))],
      outfile: join(folder, 'checkpoint-worker.cjs'),
      bundle: true,
      platform: 'node',
      format: 'cjs',
      logLevel: 'error',
      plugins: [
        {
          name: 'better-sqlite3',
          setup: (b) => b.onResolve({ filter: /^better-sqlite3$/ }, () => ({ path: addon, external: true })),
        },
      ],
    });
    worker = pathToFileURL(join(folder, 'checkpoint-worker.cjs'));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  /** A WAL database whose connection never checkpoints by itself, with `commits` rows in as many transactions. */
  function database(name: string, commits: number): { file: string; db: Database.Database } {
    const file = join(folder, name);
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    db.exec('create table t (id integer primary key, v text)');
    const insert = db.prepare('insert into t (v) values (?)');
    for (let i = 0; i < commits; i++) insert.run('x'.repeat(2_000));
    return { file, db };
  }

  it("copies the WAL's pages so that the writer's next transaction starts the WAL over", async () => {
    const { file, db } = database('copied.db', 200);
    const checkpointer: Checkpointer = createCheckpointer(file, worker);
    try {
      checkpointer.committed();
      checkpointer.committed(); // one checkpoint for both
      await until(() => checkpointer.last !== undefined);
      const last = checkpointer.last;
      expect(last?.log).toBeGreaterThanOrEqual(200);
      expect(last?.checkpointed).toBe(last?.log);
      db.prepare('insert into t (v) values (?)').run('after');
      expect(walFrames(db)).toBeLessThan(10);
    } finally {
      await checkpointer.close();
      db.close();
    }
  });

  it('leaves the WAL to grow without it (the control)', () => {
    const { db } = database('control.db', 200);
    db.prepare('insert into t (v) values (?)').run('after');
    expect(walFrames(db)).toBeGreaterThanOrEqual(200);
    db.close();
  });

  it('checkpoints again after commits that came during a checkpoint, and not before the delay', async () => {
    const { file, db } = database('again.db', 50);
    const checkpointer = createCheckpointer(file, worker);
    try {
      const started = performance.now();
      checkpointer.committed();
      await until(() => checkpointer.last !== undefined);
      expect(performance.now() - started).toBeGreaterThanOrEqual(CHECKPOINT_DELAY_MS - 5);
      const insert = db.prepare('insert into t (v) values (?)');
      insert.run('a'); // starts the WAL over: one page or two
      for (let i = 0; i < 30; i++) insert.run('b'.repeat(2_000));
      checkpointer.committed();
      await until(() => (checkpointer.last?.log ?? 0) > 30);
      expect(checkpointer.last?.checkpointed).toBe(checkpointer.last?.log);
    } finally {
      await checkpointer.close();
      db.close();
    }
  });

  /** A checkpointer whose thread is `source`, asked once more after the thread failed. */
  async function failingThread(name: string, source: string) {
    const script = join(folder, `${name}.cjs`);
    writeFileSync(script, source);
    const { file, db } = database(`${name}.db`, 10);
    const failures: string[] = [];
    const checkpointer = createCheckpointer(file, pathToFileURL(script), (error) =>
      failures.push(error instanceof Error ? error.message : String(error)),
    );
    checkpointer.committed();
    await until(() => failures.length > 0);
    checkpointer.committed();
    await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_DELAY_MS + 100)); // nothing more to say
    return { db, failures, checkpointer };
  }

  it('does nothing, and throws nothing, when the thread cannot start', async () => {
    const { db, failures, checkpointer } = await failingThread(
      'broken',
      "throw new Error('this thread cannot start');\n",
    );
    try {
      expect(checkpointer.last).toBeUndefined();
      expect(walFrames(db)).toBeGreaterThanOrEqual(10);
      // Said once, for the daemon's log: the event loop's connection checkpoints from then on.
      expect(failures).toEqual(['this thread cannot start']);
    } finally {
      await checkpointer.close();
      db.close();
    }
  });

  it('closes at once after a thread that ended without an error', async () => {
    const { db, failures, checkpointer } = await failingThread(
      'quiet',
      "require('node:worker_threads').parentPort.once('message', () => process.exit(0));\n",
    );
    // The thread is gone: waiting for its 'exit' again would hang the daemon's stop.
    const closed = await Promise.race([
      checkpointer.close().then(() => 'closed'),
      new Promise((resolve) => setTimeout(resolve, 1_000, 'hung')),
    ]);
    db.close();
    expect(closed).toBe('closed');
    expect(failures).toEqual(['the checkpoint thread ended (exit code 0)']);
  });

  it("starts with the daemon's connection's first commit and ends with its close", async () => {
    const asked: number[] = [];
    const opened = openSqlite(join(folder, 'daemon.db'), {
      checkpointWorker: () => (asked.push(1), worker),
    });
    await opened.migrate();
    const before = asked.length;
    await opened.db.transaction().execute((trx) => sql`create table c (id integer primary key)`.execute(trx));
    await opened.db.transaction().execute((trx) => sql`insert into c default values`.execute(trx));
    // Asked for once, at the first commit after the migrations (which commit too), never again.
    expect(asked.length).toBe(1);
    expect(before).toBeLessThanOrEqual(1);
    await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_DELAY_MS + 100));
    await opened.close(); // ends the thread: the test would hang on a thread left running
  });

  it("does not keep the pruner's truncating checkpoint from emptying the log", async () => {
    const file = join(folder, 'reclaim.db');
    const opened = openSqlite(file, { checkpointWorker: () => worker });
    try {
      await opened.migrate();
      await opened.db.transaction().execute((trx) => sql`create table r (v blob)`.execute(trx));
      await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_DELAY_MS + 500)); // the thread is up
      // Some 35 MB of log, under the automatic checkpoint's 10,000 pages: the thread copies it, for
      // a few hundred milliseconds, from CHECKPOINT_DELAY_MS after the commit.
      await opened.db.transaction().execute((trx) =>
        sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < 8500)
              insert into r select randomblob(4000) from n`.execute(trx),
      );
      await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_DELAY_MS + 20));
      await storageOps(opened.db, opened.dialect).reclaim();
      expect(statSync(`${file}-wal`).size).toBe(0);
    } finally {
      await opened.close();
    }
  });
});
