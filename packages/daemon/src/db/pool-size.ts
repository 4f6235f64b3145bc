import { availableParallelism } from 'node:os';

/**
 * `--db-pool`'s default: two connections per CPU core, at least 4 and at most 20. A daemon's
 * queries are short, and its writes go through one group commit at a time (two once 500 records wait,
 * decisions §20.42), so more connections would only queue in the server; the floor leaves room
 * for streams' reads beside ingest.
 */
export function defaultPoolSize(cores = availableParallelism()): number {
  return Math.min(20, Math.max(4, 2 * cores));
}
