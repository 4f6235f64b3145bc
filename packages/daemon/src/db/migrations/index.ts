import type { Migration, MigrationProvider } from 'kysely';
import * as initial from './2026-11-21T0000-initial.js';
import * as trafficCounts from './2026-11-21T0600-traffic-counts.js';
import * as webhookOutbox from './2026-11-22T0600-webhook-outbox.js';
import * as trafficIndexes from './2026-11-22T0700-traffic-indexes.js';
import * as trafficExchangeKeys from './2026-11-23T0600-traffic-exchange-keys.js';
import * as retention from './2026-11-24T0400-retention.js';

/**
 * Registered in code, not read from a folder: the daemon ships as one bundled file.
 * Names sort by time; append new migrations at the end and never edit a shipped one.
 */
export const migrations: Record<string, Migration> = {
  '2026-11-21T0000-initial': initial,
  '2026-11-21T0600-traffic-counts': trafficCounts,
  '2026-11-22T0600-webhook-outbox': webhookOutbox,
  '2026-11-22T0700-traffic-indexes': trafficIndexes,
  '2026-11-23T0600-traffic-exchange-keys': trafficExchangeKeys,
  '2026-11-24T0400-retention': retention,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: () => Promise.resolve(migrations),
};
