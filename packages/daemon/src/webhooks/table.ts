import type { WEBHOOK_ATTEMPT_OUTCOMES, WEBHOOK_DELIVERY_KINDS, WebhookLevel, WebhookType } from '@tapline/shared';
import type { Selectable } from 'kysely';

export interface WebhooksTable {
  id: string;
  traffic_source_id: string;
  type: WebhookType;
  level: WebhookLevel;
  value: string;
  /** HMAC key of an `http` webhook; null for the other types. */
  secret: string | null;
  created_at: string;
  updated_at: string;
}

export type DeliveryKind = (typeof WEBHOOK_DELIVERY_KINDS)[number];
export type AttemptOutcome = (typeof WEBHOOK_ATTEMPT_OUTCOMES)[number];
/** pending, sending (leased until next_attempt_at), delivered or failed. */
export type DeliveryStatus = 'pending' | 'sending' | 'delivered' | 'failed';

/** The webhook outbox: one row per message to send. */
export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  kind: DeliveryKind;
  http_traffic_id: string | null;
  /** JSON: the list entry (traffic), the folded counts (summary), or `{sentAt}` (test). */
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  webhook_id: string;
  kind: DeliveryKind;
  http_traffic_id: string | null;
  attempt: number;
  outcome: AttemptOutcome;
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

export type WebhookRow = Selectable<WebhooksTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;
export type WindowRow = Selectable<WebhookWindowsTable>;

export interface WebhookTables {
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  webhook_windows: WebhookWindowsTable;
}
