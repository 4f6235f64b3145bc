import { existsSync, readFileSync, rmSync } from 'node:fs';
import { endpointFile } from '@tapline/shared/lean';
import { fileURLToPath } from 'node:url';
import { createApp } from './app.js';
import type { BatchWorker } from './ingest/prepare-pool.js';
import { bootstrapLocalUser, ensureHome, writePrivateFile } from './bootstrap.js';
import { MissingAddon } from './db/native-addon.js';
import { HomeInUse, type HomeLock, lockFile, lockHome } from './home-lock.js';
import { openDatabase } from './db/open.js';
import { listen } from './http/listen.js';
import { webUiOnFirstUse, type WebUiSource } from './web-ui/assets.js';
import { systemClock } from './clock.js';
import { type DaemonConfig, DEFAULT_TIMEOUTS, type ServerTimeouts } from './config.js';
import type { Logger } from 'pino';
import { ExitError } from './exit-error.js';

export interface ServeOptions {
  readonly host: string;
  readonly port: number;
  readonly home: string;
  /** `--db`: a SQLite file, or a `postgres://` URL (db/open.ts). */
  readonly database: string;
  /** `--db-pool`: most connections to PostgreSQL at once. */
  readonly dbPool?: number;
  readonly config: DaemonConfig;
  readonly logger: Logger;
  /** Where the one `listening on` line goes. */
  readonly announce: (line: string) => void;
  readonly timeouts?: ServerTimeouts;
}

/**
 * Node checks the header and request deadlines only every `connectionsCheckingInterval` (30 s by
 * default, which let a slow client stay 90 s); checking four times per header deadline keeps the
 * overshoot under a quarter of it.
 */
function timeoutOptions(t: ServerTimeouts) {
  return {
    headersTimeout: t.headers,
    requestTimeout: t.request,
    keepAliveTimeout: t.keepAlive,
    connectionsCheckingInterval: Math.max(250, Math.min(1_000, Math.floor(t.headers / 4))),
  };
}

export interface RunningDaemon {
  readonly url: string;
  /** Stops accepting, lets requests in flight finish, closes the database. */
  stop(): Promise<void>;
}

export class StartError extends ExitError {}

/** The batch worker that the build puts beside taplined.js; run from source, there is none. */
function bundledBatchWorker(): BatchWorker | null {
  const file = new URL('./prepare-worker.js', import.meta.url);
  return existsSync(fileURLToPath(file)) ? { file } : null;
}

/** How long after the start the daemon reads the web UI's pack, if no request has read it before. */
const WEB_UI_READ_MS = 1_000;

/**
 * How long after the start the background jobs (webhook delivery, retention, the route jobs, the
 * alert evaluator) take their first look: the start's own CPU goes to its first answers (decisions §20.35).
 */
const JOBS_AFTER_MS = 1_000;

/**
 * The web UI's pack that the build puts beside taplined.js (web-ui/assets.ts); run from source,
 * there is none. Read a moment after the start, or by a request for the page before that; one
 * that cannot be read is logged, and read again by the next request.
 */
function bundledWebUi(config: DaemonConfig, logger: Logger): WebUiSource | null {
  if (!config.ui.enabled) return null;
  const file = new URL('./web-ui.json', import.meta.url);
  if (!existsSync(fileURLToPath(file))) {
    logger.warn('the web UI is not built (no web-ui.json beside the daemon): / answers 404');
    return null;
  }
  return webUiOnFirstUse(file, (error) =>
    logger.error({ err: error }, 'the web UI pack cannot be read: / answers 404'),
  );
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** One daemon per home (docs/decisions.md §13.6), taken before the database is opened. */
function takeHome(home: string): HomeLock {
  ensureHome(home);
  try {
    return lockHome(home);
  } catch (error) {
    throw new StartError(
      // A missing addon is the install's fault, not the lock's: the lock is the first connection made.
      error instanceof HomeInUse || error instanceof MissingAddon
        ? error.message
        : `cannot lock ${lockFile(home)}: ${messageOf(error)}`,
    );
  }
}

export async function serve(options: ServeOptions): Promise<RunningDaemon> {
  const lock = takeHome(options.home);
  try {
    return await serveLocked(options, lock);
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function serveLocked(options: ServeOptions, lock: HomeLock): Promise<RunningDaemon> {
  const { logger } = options;
  // One line, no stack (decisions §20.33): the event loop's own automatic checkpoint goes on.
  const onCheckpointFailure = (error: unknown): void =>
    logger.warn(
      { event: 'checkpoint_thread_failed', cause: messageOf(error) },
      "the checkpoint thread failed; the event loop's connection checkpoints from now on",
    );
  const opened = openDatabase(options.database, {
    onCheckpointFailure,
    ...(options.dbPool === undefined ? {} : { pool: options.dbPool }),
  });
  try {
    await opened.migrate();
  } catch (error) {
    await opened.close();
    throw new StartError(messageOf(error));
  }
  const signals = await opened.signals(logger);
  const webUi = bundledWebUi(options.config, logger);
  const {
    handler,
    deps,
    stop: stopApp,
  } = createApp({
    db: opened.db,
    dialect: opened.dialect,
    signals,
    config: options.config,
    logger,
    batchWorker: bundledBatchWorker(),
    webUi,
    listenHost: options.host,
    jobsAfterMs: JOBS_AFTER_MS,
  });

  const server = await listen(
    handler,
    options.port,
    options.host,
    logger,
    timeoutOptions(options.timeouts ?? DEFAULT_TIMEOUTS),
  ).catch(async (error: NodeJS.ErrnoException) => {
    await stopApp();
    await signals.close();
    await opened.close();
    throw new StartError(
      error.code === 'EADDRINUSE'
        ? `port ${options.port} on ${options.host} is already in use; stop the other process or pass --port`
        : `cannot listen on ${options.host}:${options.port}: ${error.message}`,
    );
  });
  let url: string;
  let mine: string;
  const endpoint = endpointFile(options.home);
  try {
    // Only once the port is ours: a start that fails leaves no new user or token behind.
    const tokenPath = await bootstrapLocalUser(opened.db, systemClock, deps.tokens, options.home);
    if (tokenPath) logger.info({ tokenPath }, 'first start: created the local user and wrote its token');
    const address = server.address();
    if (address === null || typeof address === 'string')
      throw new StartError('the server is not listening on a TCP port');
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    url = `http://${host}:${address.port}`;
    // So that `tapline --home H` finds this daemon whatever port it got, when no URL is given.
    mine = `${JSON.stringify({ url, pid: process.pid })}\n`;
    writePrivateFile(endpoint, mine);
  } catch (error) {
    // Nothing may keep the process alive after a failed start: the server, the app's workers, the pool.
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await stopApp();
    await opened.close();
    throw error instanceof StartError ? error : new StartError(messageOf(error));
  }
  const { backend, location } = opened.description;
  options.announce(`taplined listening on ${url} (database: ${backend} ${location})`);
  logger.info({ url, database: backend, location }, 'ready');
  // The web UI's pack is read a moment after the start, not before it listens (web-ui/assets.ts).
  if (webUi) setTimeout(webUi, WEB_UI_READ_MS).unref();

  let stopping: Promise<void> | undefined;
  return {
    url,
    stop: () =>
      (stopping ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        // Long-lived answers (event streams) end now; idle keep-alive sockets close at once.
        await stopApp();
        server.closeIdleConnections();
        const force = setTimeout(() => server.closeAllConnections(), 10_000);
        await closed;
        clearTimeout(force);
        await signals.close();
        await opened.close();
        // Only our own, and before the lock goes: the next daemon on this home writes its own.
        if (existsSync(endpoint) && readFileSync(endpoint, 'utf8') === mine) rmSync(endpoint, { force: true });
        lock.release();
      })()),
  };
}
