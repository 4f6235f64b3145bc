import type { AddressInfo } from 'node:net';
import { createClient, type Scope, type TaplineClient } from '@tapline/shared';
import pino from 'pino';
import {
  type App,
  type AppOptions,
  type Clock,
  createApp,
  createUser,
  type DaemonConfig,
  defaultConfig,
  listen,
  openDatabase,
  systemClock,
} from '@tapline/daemon';
import { openTestDatabase } from './database.js';

export interface TestUser {
  readonly id: string;
  readonly email: string;
  readonly token: string;
  readonly client: TaplineClient;
}

export interface Harness {
  readonly url: string;
  readonly deps: App['deps'];
  readonly batches: App['batches'];
  readonly pruner: App['pruner'];
  readonly routeBackfill: App['routeBackfill'];
  readonly routeReassignment: App['routeReassignment'];
  readonly statsPruner: App['statsPruner'];
  readonly alerts: App['alerts'];
  /** A client with no token, for the 400/401 cases. */
  readonly anonymous: TaplineClient;
  user(
    email?: string,
    options?: { scope?: Scope; sourceId?: string | null; expiresAt?: Date | null },
  ): Promise<TestUser>;
  /** Another token of an existing user. */
  token(
    userId: string,
    options?: { scope?: Scope; sourceId?: string | null; expiresAt?: Date | null },
  ): Promise<TaplineClient>;
  fetch(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

let counter = 0;

/** Its own database, or (migrated, as a daemon would at start) the one another harness uses. */
async function openHarnessDatabase(locator: string | undefined) {
  if (locator === undefined) return openTestDatabase();
  const opened = openDatabase(locator, { pool: 4 });
  await opened.migrate();
  return opened;
}

/**
 * The app factory on a private database of the test backend (database.ts: SQLite in memory, or
 * a PostgreSQL database of its own), listening on a free loopback port, so tests
 * speak real HTTP through the same typed client the CLI uses.
 */
export async function startHarness(
  options: {
    config?: Partial<DaemonConfig>;
    clock?: Clock;
    /**
     * Another daemon's database (a `freshDatabase` locator), to run several apps on one store as
     * several daemons do; it is left in place at close. Without it the harness has its own.
     */
    database?: string;
  } & Pick<AppOptions, 'ingestHooks' | 'bus' | 'batchWorker' | 'pruner' | 'routeBackfill' | 'routeReassignment'> &
    Partial<Pick<AppOptions, 'logger'>> = {},
): Promise<Harness> {
  const logger = options.logger ?? pino({ level: 'silent' });
  const opened = await openHarnessDatabase(options.database);
  const { handler, deps, batches, pruner, routeBackfill, routeReassignment, statsPruner, alerts, stop } = createApp({
    db: opened.db,
    dialect: opened.dialect,
    config: { ...defaultConfig('0.0.0-test'), ...options.config },
    logger,
    clock: options.clock ?? systemClock,
    ...(options.ingestHooks ? { ingestHooks: options.ingestHooks } : {}),
    ...(options.bus ? { bus: options.bus } : {}),
    ...(options.batchWorker ? { batchWorker: options.batchWorker } : {}),
    ...(options.pruner ? { pruner: options.pruner } : {}),
    ...(options.routeBackfill ? { routeBackfill: options.routeBackfill } : {}),
    ...(options.routeReassignment ? { routeReassignment: options.routeReassignment } : {}),
  });
  const server = await listen(handler, 0, '127.0.0.1', logger);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function token(
    userId: string,
    opts: { scope?: Scope; sourceId?: string | null; expiresAt?: Date | null } = {},
  ) {
    const issued = await deps.tokens.issue({
      userId,
      scope: opts.scope ?? 'full',
      sourceId: opts.sourceId ?? null,
      expiresAt: opts.expiresAt ?? null,
    });
    return createClient({ baseUrl: url, token: issued.token });
  }

  return {
    url,
    deps,
    batches,
    pruner,
    routeBackfill,
    routeReassignment,
    statsPruner,
    alerts,
    anonymous: createClient({ baseUrl: url }),
    async user(email, opts = {}) {
      const user = await createUser(opened.db, deps.clock, { email: email ?? `user${++counter}@example.com` });
      const issued = await deps.tokens.issue({
        userId: user.id,
        scope: opts.scope ?? 'full',
        sourceId: opts.sourceId ?? null,
        expiresAt: opts.expiresAt ?? null,
      });
      return {
        id: user.id,
        email: user.email,
        token: issued.token,
        client: createClient({ baseUrl: url, token: issued.token }),
      };
    },
    token,
    fetch: (path, init) => fetch(`${url}${path}`, init),
    async close() {
      await stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await opened.close();
    },
  };
}
