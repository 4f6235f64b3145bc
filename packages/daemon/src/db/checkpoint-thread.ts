import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/** What the event loop hands the checkpoint thread when it starts (db/checkpointer.ts). */
export interface CheckpointWorkerData {
  readonly file: string;
  /**
   * better-sqlite3's `nativeBinding` (db/native-addon.ts): always given, the file the event loop's
   * connections load, so the thread loads that one too.
   */
  readonly nativeBinding: string;
}

/** The thread's answer to each checkpoint: SQLite's own `wal_checkpoint` row. */
export interface CheckpointResult {
  readonly busy: number;
  readonly log: number;
  readonly checkpointed: number;
}

// eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- node types workerData as `any`; checkpointer.ts passes a CheckpointWorkerData (checked there with `satisfies`)
const { file, nativeBinding } = workerData as CheckpointWorkerData;
const port = parentPort;
const sqlite = new Database(file, { fileMustExist: true, nativeBinding });

/**
 * The checkpoint thread's entry (bundled to dist/checkpoint-worker.js beside taplined.js): its own
 * connection to the daemon's database, which copies the WAL's committed pages into the database
 * file and syncs both, on the event loop's request, so that the event loop's connection no longer
 * stalls for it (decisions §20.33). PASSIVE: it never waits for the writer, who goes on appending.
 * `close` closes the connection and ends the thread.
 */
port?.on('message', (message: 'checkpoint' | 'close') => {
  if (message === 'close') {
    sqlite.close();
    port.close();
    return;
  }
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- SQLite's one row of three counts
  const [result] = sqlite.pragma('wal_checkpoint(PASSIVE)') as CheckpointResult[];
  port.postMessage(result);
});
