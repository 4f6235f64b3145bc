import type { Clock } from './clock.js';
import type { SqlDialect } from './db/dialect.js';
import type { Db } from './db/open.js';
import type { ClusterSignals } from './db/signals.js';
import type { TrafficBus } from './stream/bus.js';
import type { ServerDeps } from './http/server-deps.js';
import type { StorageOps } from './retention/storage.js';
import type { SourceFinder } from './traffic-sources/repo.js';

/** Everything a route or service needs, passed in: no module keeps state of its own. */
export interface Deps extends ServerDeps {
  readonly db: Db;
  /** How this database's engine spells what SQLite and PostgreSQL spell differently. */
  readonly dialect: SqlDialect;
  readonly clock: Clock;
  readonly bus: TrafficBus;
  /** Wake-ups from the other daemons on this database (none on SQLite). */
  readonly signals: ClusterSignals;
  /** The traffic source by id (compiled once for this database). */
  readonly findSource: SourceFinder;
  /** The database's size and the dialect's maintenance (retention/storage.ts). */
  readonly storage: StorageOps;
}
