/**
 * One interface per table, as Kysely's own example does. Column names are snake_case here and
 * never reach the wire: each feature's repository maps rows to wire objects in one place.
 * Timestamps are ISO 8601 UTC text with milliseconds, so they sort as text in every dialect.
 */
export interface UsersTable {
  id: string;
  email: string;
  name: string;
  password_hash: string | null;
  created_at: string;
  updated_at: string;
}

export interface TokensTable {
  id: string;
  user_id: string;
  scope: string;
  source_id: string | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

export interface SettingsTable {
  key: string;
  value: string;
}

export interface TrafficSourcesTable {
  id: string;
  user_id: string;
  name: string;
  traffic_domain: string;
  created_at: string;
  updated_at: string;
}

export interface DomainsTable {
  id: string;
  traffic_source_id: string;
  value: string;
  created_at: string;
}

export interface PathnamesTable {
  id: string;
  traffic_source_id: string;
  domain_id: string;
  value: string;
  created_at: string;
}

/** Headers, query and bodies are JSON text; a null body is SQL NULL. */
export interface RequestsTable {
  id: string;
  traffic_source_id: string;
  headers: string;
  body: string | null;
  query_params: string;
}

export interface ResponsesTable {
  id: string;
  traffic_source_id: string;
  headers: string;
  body: string | null;
}

export interface HttpTrafficTable {
  id: string;
  traffic_source_id: string;
  domain_id: string;
  pathname_id: string;
  request_id: string;
  response_id: string;
  status: number;
  method: string;
  level: string;
  protocol: string;
  elapsed_time: number;
  traffic_user_id: string | null;
  created_at: string;
}

/** Rollup of http_traffic kept in the ingest transaction; see http-traffic/counts.ts. */
export interface TrafficCountsTable {
  traffic_source_id: string;
  pathname_id: string;
  domain_id: string;
  method: string;
  status: number;
  level: string;
  count: number;
}

export interface CoreLogsTable {
  id: string;
  traffic_source_id: string;
  http_traffic_id: string | null;
  title: string;
  description: string;
  source: string;
  layer: string;
  stack: string;
  created_at: string;
}

export interface WebhooksTable {
  id: string;
  traffic_source_id: string;
  type: string;
  level: string;
  value: string;
  /** HMAC key of an `http` webhook; null for the other types. */
  secret: string | null;
  created_at: string;
  updated_at: string;
}

/** The webhook outbox: one row per message to send (`kind` traffic, summary or test). */
export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  kind: string;
  http_traffic_id: string | null;
  /** JSON: the list entry (traffic), the folded counts (summary), or `{}` (test). */
  payload: string;
  /** pending, sending (leased until next_attempt_at), delivered or failed. */
  status: string;
  attempts: number;
  next_attempt_at: string;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  webhook_id: string;
  kind: string;
  http_traffic_id: string | null;
  attempt: number;
  /** delivered, retrying or failed. */
  outcome: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  next_attempt_at: string | null;
  created_at: string;
}

/** Storm control: a webhook's current one-minute window. */
export interface WebhookWindowsTable {
  webhook_id: string;
  started_at: string;
  messages: number;
  summary_id: string | null;
}

export interface DB {
  users: UsersTable;
  tokens: TokensTable;
  settings: SettingsTable;
  traffic_sources: TrafficSourcesTable;
  domains: DomainsTable;
  pathnames: PathnamesTable;
  requests: RequestsTable;
  responses: ResponsesTable;
  http_traffic: HttpTrafficTable;
  traffic_counts: TrafficCountsTable;
  core_logs: CoreLogsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  webhook_windows: WebhookWindowsTable;
}
