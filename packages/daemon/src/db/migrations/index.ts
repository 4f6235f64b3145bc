import type { Kysely, Migration, MigrationProvider } from 'kysely';
import type { SqlDialect } from '../dialect.js';
import * as initial from './2026-11-21T0000-initial.js';
import * as trafficCounts from './2026-11-21T0600-traffic-counts.js';
import * as webhookOutbox from './2026-11-22T0600-webhook-outbox.js';
import * as trafficIndexes from './2026-11-22T0700-traffic-indexes.js';
import * as trafficExchangeKeys from './2026-11-23T0600-traffic-exchange-keys.js';
import * as streamSequence from './2026-11-24T0200-stream-sequence.js';
import * as trafficRoute from './2026-11-24T0300-traffic-route.js';
import * as retention from './2026-11-24T0400-retention.js';
import * as compactStorage from './2026-11-25T0100-compact-storage.js';
import * as compactIds from './2026-11-26T0100-compact-ids.js';
import * as narrowNewestFirst from './2026-11-26T0200-narrow-newest-first.js';
import * as routes from './2026-11-27T0100-routes.js';
import * as routeStats from './2026-11-27T0200-route-stats.js';
import * as alerts from './2026-11-27T0500-alerts.js';
import * as routeRules from './2026-11-27T0500-route-rules.js';
import * as routeRollups from './2026-11-28T0100-route-rollups.js';
import * as statsWithoutRowid from './2026-11-28T0200-stats-without-rowid.js';
import * as statsEpochs from './2026-11-29T0100-stats-epochs.js';

/**
 * Kysely's Migration, given the dialect as well: the one place a migration learns how its
 * engine spells what SQLite and PostgreSQL spell differently (db/dialect.ts).
 */
export interface TaplineMigration {
  readonly up: (db: Kysely<unknown>, dialect: SqlDialect) => Promise<void>;
  readonly down?: (db: Kysely<unknown>, dialect: SqlDialect) => Promise<void>;
}

/**
 * Registered in code, not read from a folder: the daemon ships as one bundled file.
 * Names sort by time; append new migrations at the end and never edit a shipped one.
 */
export const migrations: Record<string, TaplineMigration> = {
  '2026-11-21T0000-initial': initial,
  '2026-11-21T0600-traffic-counts': trafficCounts,
  '2026-11-22T0600-webhook-outbox': webhookOutbox,
  '2026-11-22T0700-traffic-indexes': trafficIndexes,
  '2026-11-23T0600-traffic-exchange-keys': trafficExchangeKeys,
  '2026-11-24T0200-stream-sequence': streamSequence,
  '2026-11-24T0300-traffic-route': trafficRoute,
  '2026-11-24T0400-retention': retention,
  '2026-11-25T0100-compact-storage': compactStorage,
  '2026-11-26T0100-compact-ids': compactIds,
  '2026-11-26T0200-narrow-newest-first': narrowNewestFirst,
  '2026-11-27T0100-routes': routes,
  '2026-11-27T0200-route-stats': routeStats,
  '2026-11-27T0500-alerts': alerts,
  '2026-11-27T0500-route-rules': routeRules,
  '2026-11-28T0100-route-rollups': routeRollups,
  '2026-11-28T0200-stats-without-rowid': statsWithoutRowid,
  '2026-11-29T0100-stats-epochs': statsEpochs,
};

/** One history for both engines: the same names, run in the same order, each told its dialect. */
export function migrationProvider(dialect: SqlDialect): MigrationProvider {
  const bound = (m: TaplineMigration): Migration => {
    const { down } = m;
    return { up: (db) => m.up(db, dialect), ...(down ? { down: (db: Kysely<unknown>) => down(db, dialect) } : {}) };
  };
  return {
    getMigrations: () =>
      Promise.resolve(Object.fromEntries(Object.entries(migrations).map(([name, m]) => [name, bound(m)]))),
  };
}
