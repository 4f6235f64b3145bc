/**
 * Every table `taplined copy` moves, parents before children (so foreign keys hold at every
 * commit), each with the primary key it is read in order of. A table the copy does not know
 * stops it before it writes anything (see `unknownTables`): a migration that adds a table must
 * add it here, and the copy tests fail until it does.
 */
export interface CopiedTable {
  readonly name: string;
  readonly key: readonly string[];
  /**
   * Columns read as JSON text through the source's payload codec (compact storage): a compressed
   * SQLite value means nothing to PostgreSQL, and text is valid stored form on either side.
   */
  readonly payloads?: readonly string[];
}

export const COPIED_TABLES: readonly CopiedTable[] = [
  { name: 'users', key: ['id'] },
  { name: 'settings', key: ['key'] },
  { name: 'traffic_sources', key: ['id'] },
  { name: 'tokens', key: ['id'] },
  { name: 'domains', key: ['id'] },
  { name: 'pathnames', key: ['id'] },
  { name: 'payload_dictionaries', key: ['id'] },
  { name: 'routes', key: ['id'] },
  { name: 'route_rules', key: ['id'] },
  { name: 'route_reassignments', key: ['traffic_source_id'] },
  {
    name: 'http_traffic',
    key: ['id'],
    payloads: ['request_headers', 'request_body', 'query_params', 'response_headers', 'response_body'],
  },
  { name: 'traffic_counts', key: ['traffic_source_id', 'pathname_id', 'method', 'status'] },
  { name: 'route_stats', key: ['traffic_source_id', 'minute', 'route_id', 'method', 'domain_id', 'status_class'] },
  {
    name: 'route_rollups',
    key: ['traffic_source_id', 'span', 'start', 'route_id', 'method', 'domain_id', 'status_class'],
  },
  { name: 'route_stats_epochs', key: ['traffic_source_id'] },
  { name: 'core_logs', key: ['id'] },
  { name: 'webhooks', key: ['id'] },
  { name: 'webhook_deliveries', key: ['id'] },
  { name: 'webhook_attempts', key: ['id'] },
  { name: 'webhook_windows', key: ['webhook_id'] },
  { name: 'alert_rules', key: ['id'] },
  { name: 'alert_rule_webhooks', key: ['rule_id', 'webhook_id'] },
  { name: 'alert_events', key: ['id'] },
];

/**
 * Kysely's own bookkeeping: each side keeps its own, written by its own migrations; and the stream
 * counter, one row both sides get from their migration, whose value copy.ts sets after the rows.
 */
const MIGRATOR_TABLES = new Set(['kysely_migration', 'kysely_migration_lock', 'stream_sequence']);

export function unknownTables(present: readonly string[]): string[] {
  const known = new Set(COPIED_TABLES.map((t) => t.name));
  return present.filter((name) => !known.has(name) && !MIGRATOR_TABLES.has(name));
}
