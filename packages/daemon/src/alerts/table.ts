import type { AlertMetric, AlertOperator, AlertState, HttpMethod } from '@tapline/shared';
import type { Selectable } from 'kysely';

/** One rule with its state (migration 2026-11-27T0500-alerts). Times are ISO 8601 UTC text. */
export interface AlertRulesTable {
  id: string;
  traffic_source_id: string;
  /** The `when` as given, trimmed. */
  condition: string;
  metric: AlertMetric;
  operator: AlertOperator;
  /** Milliseconds, a fraction of 1, or requests per minute; the factor for a baseline rule. */
  threshold: number;
  baseline_days: number | null;
  route: string | null;
  method: HttpMethod | null;
  for_ms: number;
  window_ms: number;
  min_requests: number;
  repeat_ms: number | null;
  state: AlertState;
  state_since: string;
  /** When the current firing began (kept through resolution, for "fired for"). */
  firing_since: string | null;
  /** While firing: since when the condition has been false; resolved once that lasts a window. */
  clear_since: string | null;
  /** The last firing message or reminder, for `--repeat`. */
  notified_at: string | null;
  last_value: number | null;
  last_requests: number | null;
  evaluated_at: string | null;
  next_eval_at: string;
  /** The daemon evaluating it now, and until when that claim holds. */
  lease_owner: string | null;
  lease_until: string | null;
  created_at: string;
}

export interface AlertRuleWebhooksTable {
  rule_id: string;
  webhook_id: string;
}

export interface AlertEventsTable {
  id: string;
  rule_id: string;
  traffic_source_id: string;
  from_state: AlertState;
  to_state: AlertState;
  created_at: string;
  value: number | null;
  threshold: number | null;
  window_since: string;
  window_until: string;
  requests: number;
  /** JSON of AlertBaseline, for baseline rules. */
  baseline: string | null;
  notified: number;
}

export type AlertRuleRow = Selectable<AlertRulesTable>;
export type AlertEventRow = Selectable<AlertEventsTable>;

export interface AlertTables {
  alert_rules: AlertRulesTable;
  alert_rule_webhooks: AlertRuleWebhooksTable;
  alert_events: AlertEventsTable;
}
