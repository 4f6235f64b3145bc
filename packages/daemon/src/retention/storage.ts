import { statSync } from 'node:fs';
import { sql } from 'kysely';
import type { Backend, SqlDialect } from '../db/dialect.js';
import type { Executor } from '../db/types.js';
import { nextTurn, type Pause } from './pace.js';

/**
 * The storage operations that differ by dialect, in one place, so the pruner, `check`, `status`
 * and the tests speak to one interface. Everything else retention does is Kysely's builder.
 *
 * SQLite: size is the main file plus its write-ahead log; freed pages go back to the file system
 * by incremental vacuum (the database is `auto_vacuum = INCREMENTAL`, migration
 * 2026-11-24T0400-retention) and a truncating checkpoint; the checks are SQLite's own.
 * PostgreSQL: size is `pg_database_size`; freed space is reused by autovacuum (the files do not
 * shrink, they stop growing); there is no structural check of ours (`amcheck` is the DBA's tool).
 */
export interface StorageOps {
  readonly backend: Backend;
  /** Whether the size on disk falls when rows go (after `reclaim`). */
  readonly shrinks: boolean;
  /** Everything the database takes on disk, its write-ahead log included. */
  sizeBytes(): Promise<number>;
  /** Bytes holding data: the size less free pages a vacuum can give back. */
  usedBytes(): Promise<number>;
  /**
   * Gives freed pages back to the file system where the dialect can; cheap when there are none.
   * In short write transactions with `pause` between two (the pruner's, pace.ts); stops early
   * when `signal` aborts (the daemon stopping: the rest is given back at the next prune).
   */
  reclaim(pause?: Pause, signal?: AbortSignal): Promise<void>;
  /**
   * Copies the write-ahead log back into the database without holding anyone up (SQLite: a
   * passive checkpoint); nothing where the dialect has no such log of ours.
   */
  checkpoint(): Promise<void>;
  /** Structural problems found by the dialect's own checks, one line each; empty when sound. */
  integrityProblems(): Promise<string[]>;
}

/** The database, or a transaction of it: these run raw SQL that any schema version answers. */
type AnyDb = Executor;

export function storageOps(db: AnyDb, dialect: SqlDialect): StorageOps {
  return dialect.backend === 'sqlite' ? sqliteOps(db) : postgresOps(db);
}

async function pragmaNumber(db: AnyDb, name: 'page_count' | 'page_size' | 'freelist_count'): Promise<number> {
  const { rows } = await sql<Record<string, number>>`select * from ${sql.raw(`pragma_${name}()`)}`.execute(db);
  return Number(rows[0]?.[name] ?? 0);
}

/** Pages given back per write transaction (1 MiB of 4 KiB pages: a few milliseconds). */
const VACUUM_SLICE = 256;
/** How long the truncating checkpoint may hold other connections' writes back. */
const CHECKPOINT_WAIT_MS = 100;
/** How long it tries again while another connection checkpoints (a whole log: some 200 ms), and how often. */
const CHECKPOINT_LOCK_WAIT_MS = 2_000;
const CHECKPOINT_RETRY_MS = 10;

function sqliteOps(db: AnyDb): StorageOps {
  let walFile: string | null | undefined;
  async function walBytes(): Promise<number> {
    if (walFile === undefined) {
      const { rows } = await sql<{ name: string; file: string }>`select name, file from pragma_database_list()`.execute(
        db,
      );
      const file = rows.find((r) => r.name === 'main')?.file ?? '';
      walFile = file ? `${file}-wal` : null; // '' is an in-memory database: no log on disk
    }
    if (!walFile) return 0;
    try {
      return statSync(walFile).size;
    } catch {
      return 0; // no log yet, or checkpointed away
    }
  }
  const pages = async (name: 'page_count' | 'freelist_count') =>
    (await pragmaNumber(db, name)) * (await pragmaNumber(db, 'page_size'));
  return {
    backend: 'sqlite',
    shrinks: true,
    sizeBytes: async () => (await pages('page_count')) + (await walBytes()),
    usedBytes: async () => (await pages('page_count')) - (await pages('freelist_count')) + (await walBytes()),
    async reclaim(pause = nextTurn, signal) {
      // `pragma incremental_vacuum` gives back one page per step of the statement, and the driver
      // steps a statement without result columns once: each call is one page. Alone, each call
      // was its own transaction, which wrote the log over and over and kept another process's
      // writes out (docs/performance.md#retention-and-the-pruner). So a slice of calls in one
      // short transaction, and the pruner's pause between two.
      for (let free = await pragmaNumber(db, 'freelist_count'); free > 0;) {
        const started = performance.now();
        const slice = async (c: AnyDb) => {
          for (let page = Math.min(free, VACUUM_SLICE); page > 0; page--)
            await sql`pragma incremental_vacuum(1)`.execute(c);
        };
        await (db.isTransaction ? slice(db) : db.transaction().execute(slice));
        const left = await pragmaNumber(db, 'freelist_count');
        if (left >= free) break; // nothing more it can give back
        free = left;
        await pause(performance.now() - started);
        if (signal?.aborted) return;
      }
      // The log holds the deletes until a checkpoint; TRUNCATE writes them back and empties the
      // file, so the space shows on disk and in the budget at once. It waits for every reader
      // to reach the newest snapshot and holds back writers meanwhile: run by `taplined prune`
      // beside a busy daemon, it held the daemon's writes past their 5 s and failed composes.
      // So a passive checkpoint (which holds no one back) first copies what it can, and the
      // truncating one, left with little to copy, waits a moment at most; when it cannot finish,
      // the log empties at a later one.
      // On one connection held throughout, so that no ingest transaction runs in between with
      // the short timeout.
      // Another connection's checkpoint (the daemon's checkpoint thread, decisions §20.33, or
      // another process's) holds the checkpoint lock, which SQLite does not wait for, whatever
      // the busy timeout: the checkpoint then answers a log of -1 and empties nothing. It is tried
      // again after that one, for CHECKPOINT_LOCK_WAIT_MS at most, the connection free meanwhile.
      const checkpoint = async (c: AnyDb): Promise<boolean> => {
        await sql`pragma wal_checkpoint(PASSIVE)`.execute(c);
        const { rows } = await sql<{ timeout: number }>`pragma busy_timeout`.execute(c);
        await sql`pragma busy_timeout = ${sql.lit(CHECKPOINT_WAIT_MS)}`.execute(c);
        try {
          const done = await sql<{ log: number }>`pragma wal_checkpoint(TRUNCATE)`.execute(c);
          return done.rows[0]?.log !== -1;
        } finally {
          await sql`pragma busy_timeout = ${sql.lit(rows[0]?.timeout ?? 0)}`.execute(c);
        }
      };
      for (const started = performance.now(); ;) {
        if (await (db.isTransaction ? checkpoint(db) : db.connection().execute(checkpoint))) return;
        if (signal?.aborted || performance.now() - started > CHECKPOINT_LOCK_WAIT_MS) return;
        await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_RETRY_MS));
      }
    },
    async checkpoint() {
      await sql`pragma wal_checkpoint(PASSIVE)`.execute(db);
    },
    async integrityProblems() {
      const integrity = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(db);
      const problems = integrity.rows.map((r) => r.integrity_check).filter((line) => line !== 'ok');
      const keys = await sql<{ table: string; rowid: number; parent: string }>`pragma foreign_key_check`.execute(db);
      for (const k of keys.rows) problems.push(`${k.table} row ${k.rowid} names a missing ${k.parent} row`);
      return problems;
    },
  };
}

function postgresOps(db: AnyDb): StorageOps {
  const size = async () => {
    const { rows } = await sql<{
      bytes: string | number;
    }>`select pg_database_size(current_database()) as bytes`.execute(db);
    return Number(rows[0]?.bytes ?? 0);
  };
  return {
    backend: 'postgres',
    shrinks: false,
    sizeBytes: size,
    // Dead tuples are reused by autovacuum in place: the size on disk is what there is to budget.
    usedBytes: size,
    reclaim: () => Promise.resolve(),
    checkpoint: () => Promise.resolve(),
    integrityProblems: () => Promise.resolve([]),
  };
}
