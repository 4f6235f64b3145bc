import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  Kysely,
  SqliteDialect,
  SqliteDriver,
  type SqliteDialectConfig,
  type TransactionSettings,
} from 'kysely';
import {
  binsOf,
  encodeBins,
  mergeStoredTransient,
  SKETCH_MERGE_FUNCTION,
  SKETCH_UNION_AGGREGATE,
  SketchSum,
} from '../route-stats/sketch.js';
import { PAYLOAD_TEXT_FUNCTION, sqliteDialect } from './dialect.js';
import { compressingPayloads } from './payload-codec.js';
import { localSignals } from './signals.js';
import { migrateToLatest } from './migrate.js';
import { allMigrated, copyNewHome, restamp, startFromSchema } from './migrations/new-home.js';
import { storedValuesPlugin } from './stored-values.js';
import { nativeBinding } from './native-addon.js';
import { type Checkpointer, createCheckpointer } from './checkpointer.js';
import type { OpenedDatabase } from './types.js';
import type { DB } from './schema.js';

/**
 * The database holds the token signing key and password hashes: owner-only, whatever the umask
 * or the folder's mode. SQLite gives its -wal and -shm files the database file's mode.
 */
function restrictToOwner(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  for (const path of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(path)) chmodSync(path, 0o600);
}

/**
 * Transactions begin IMMEDIATE: they take the write lock first, waiting for it (busy_timeout)
 * while another process (`taplined prune`) holds it. A deferred one that read first (a name
 * looked up, then created) got SQLITE_BUSY at once on its first write: SQLite never waits there.
 * One that asks for read-only access or an isolation level (copy's snapshot of its source) only
 * reads, and stays deferred so that it holds no one's writes back.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  constructor(
    settings: SqliteDialectConfig,
    private readonly inTransaction: () => boolean,
    private readonly committed: () => void,
  ) {
    super(settings);
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await super.commitTransaction(connection);
    this.committed();
  }

  override async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings = {}): Promise<void> {
    const reader = settings.accessMode === 'read only' || settings.isolationLevel !== undefined;
    await connection.executeQuery(CompiledQuery.raw(reader ? 'begin' : 'begin immediate'));
  }

  /**
   * SQLite rolls the transaction back itself on a failed write (SQLITE_IOERR, SQLITE_FULL: the
   * file or its folder cannot be written). Rolling back again failed with "no transaction is
   * active", and that error replaced the one that says what happened, a 503, with a 500.
   */
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.inTransaction()) await super.rollbackTransaction(connection);
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(
    private readonly settings: SqliteDialectConfig,
    private readonly inTransaction: () => boolean,
    private readonly committed: () => void,
  ) {
    super(settings);
  }
  override createDriver(): SqliteDriver {
    return new ImmediateSqliteDriver(this.settings, this.inTransaction, this.committed);
  }
}

/** The checkpoint thread that the build puts beside taplined.js; run from source, there is none. */
function bundledCheckpointWorker(): URL | undefined {
  const worker = new URL('./checkpoint-worker.js', import.meta.url);
  return existsSync(fileURLToPath(worker)) ? worker : undefined;
}

/** The new home the build puts beside taplined.js (scripts/new-home-template.mjs); run from source, there is none. */
function bundledNewHome(): string | undefined {
  const file = fileURLToPath(new URL('./new-home.db', import.meta.url));
  return existsSync(file) ? file : undefined;
}

/**
 * The embedded engine: one connection, WAL, and the pragmas and statement cache that make it fast.
 * `:memory:` gives a private in-memory database. A new database file is a copy of the build's new
 * home when there is one, else made from the migrations' schema (migrations/new-home.ts); unless
 * `fromSchema` is false (what makes and checks that schema), then the migrations make it.
 */
export function openSqlite(
  file: string,
  {
    fromSchema = true,
    checkpointWorker = bundledCheckpointWorker,
    newHome = bundledNewHome,
    onCheckpointFailure,
  }: {
    readonly fromSchema?: boolean;
    /** The file a new database is copied from (copyNewHome), or undefined to make it from the schema. */
    readonly newHome?: () => string | undefined;
    /** The checkpoint thread failed, once (OpenOptions). */
    readonly onCheckpointFailure?: (error: unknown) => void;
    /** The checkpoint thread's file (db/checkpointer.ts), or undefined to checkpoint on this connection. */
    readonly checkpointWorker?: () => URL | undefined;
  } = {},
): Omit<OpenedDatabase, 'description'> {
  const template = fromSchema && file !== ':memory:' ? newHome() : undefined;
  const copied = template !== undefined && copyNewHome(file, template);
  if (file !== ':memory:') restrictToOwner(file);
  const sqlite = new Database(file, { nativeBinding: nativeBinding() });
  // A new database takes incremental auto-vacuum (what the retention migration sets) before its
  // first page is written, which setting WAL does: then it needs no VACUUM (migrations/new-home.ts).
  if (fromSchema && sqlite.pragma('page_count', { simple: true }) === 0) sqlite.pragma('auto_vacuum = incremental');
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Ingest writes tens of MB of WAL a second under load: checkpoint (and fsync) every ~40 MB rather
  // than every 4 MB. The page cache (16 MiB) is the daemon's own memory, kept small: a larger one
  // filled and never gave it back (docs/performance.md#storage-format); the OS caches the file anyway.
  sqlite.pragma('wal_autocheckpoint = 10000');
  // From the first commit on, a thread checkpoints (db/checkpointer.ts); the automatic checkpoint
  // above then finds the pages copied and only completes the last ones.
  let checkpointer: Checkpointer | undefined;
  let checkpointing = file !== ':memory:';
  const committed = (): void => {
    if (!checkpointing) return;
    if (!checkpointer) {
      const worker = checkpointWorker();
      checkpointing = worker !== undefined;
      if (!worker) return;
      checkpointer = createCheckpointer(file, worker, onCheckpointFailure);
    }
    checkpointer.committed();
  };
  sqlite.pragma('cache_size = -16384');
  // Gathers planner statistics where they are missing or stale (cheap, bounded work), so the
  // filtered list picks its index well on a database that was never ANALYZEd.
  sqlite.pragma('optimize = 0x10002');

  // Kysely prepares every query anew; better-sqlite3 statements are reusable, and preparing
  // costs more than running a short query, so keep them by SQL text (bounded: the set of
  // query shapes is small, but the filter language can make many).
  const statements = new Map<string, Database.Statement>();
  const database = {
    close: () => sqlite.close(),
    prepare(sqlText: string) {
      let statement = statements.get(sqlText);
      if (!statement) {
        if (statements.size >= 1000) statements.clear();
        statement = sqlite.prepare(sqlText);
        statements.set(sqlText, statement);
      }
      return statement;
    },
  };

  // A dictionary this connection has not seen is read through a second, short-lived connection:
  // the decoder runs inside a statement of this one, which cannot run another meanwhile.
  const payloads = compressingPayloads((id) => {
    if (file === ':memory:') return undefined; // a private database: this connection wrote them all
    const reader = new Database(file, { readonly: true, fileMustExist: true, nativeBinding: nativeBinding() });
    try {
      const row: unknown = reader.prepare('select data from payload_dictionaries where id = ?').get(id);
      return row && typeof row === 'object' && 'data' in row && row.data instanceof Uint8Array ? row.data : undefined;
    } finally {
      reader.close();
    }
  });
  sqlite.function(PAYLOAD_TEXT_FUNCTION, { deterministic: true }, (value: unknown) => {
    if (value === null || typeof value === 'string' || value instanceof Uint8Array)
      return value === null ? null : payloads.decode(value);
    throw new TypeError(`${PAYLOAD_TEXT_FUNCTION} takes a stored payload, not ${typeof value}`);
  });
  sqlite.function(SKETCH_MERGE_FUNCTION, { deterministic: true }, (a: unknown, b: unknown) => {
    if ((a === null || a instanceof Uint8Array) && (b === null || b instanceof Uint8Array))
      return mergeStoredTransient(a, b);
    throw new TypeError(`${SKETCH_MERGE_FUNCTION} takes two stored sketches`);
  });
  // Each row's bins are noted and added once at the end (`SketchSum`): merged into the library's
  // stores row by row, they moved their bins at every key past the range held, most of the time of
  // a read of a window's last minutes.
  sqlite.aggregate(SKETCH_UNION_AGGREGATE, {
    start: () => new SketchSum(),
    step: (into: SketchSum, value: unknown) => {
      if (value !== null && !(value instanceof Uint8Array))
        throw new TypeError(`${SKETCH_UNION_AGGREGATE} takes stored sketches`);
      into.add(binsOf(value));
      return into;
    },
    result: (sum: SketchSum) => encodeBins(sum.bins()),
  });
  const dialect = sqliteDialect(payloads, {
    prepare: (sqlText) => database.prepare(sqlText),
    get inTransaction() {
      return sqlite.inTransaction;
    },
  });

  const db = new Kysely<DB>({
    dialect: new ImmediateSqliteDialect({ database }, () => sqlite.inTransaction, committed),
    plugins: [storedValuesPlugin(dialect.stored)],
  });
  return {
    db,
    dialect,
    migrate: async () => {
      if (copied) restamp(sqlite, new Date().toISOString());
      else if (fromSchema) startFromSchema(sqlite, new Date().toISOString());
      if (!allMigrated(sqlite)) await migrateToLatest(db, dialect);
      await payloads.load(db);
    },
    signals: () => Promise.resolve(localSignals()),
    close: async () => {
      checkpointing = false;
      await checkpointer?.close();
      if (sqlite.open) sqlite.pragma('optimize');
      await db.destroy();
    },
  };
}
