import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

// Frozen once shipped. `unknown` schema: a migration must not depend on today's tables.
type AnyDB = Kysely<unknown>;

/**
 * Alert rules on the route numbers (issue 27, docs/alerts.md). A rule's state lives on its row, so
 * that daemons sharing a database agree on it: `lease_owner`/`lease_until` is the claim one
 * daemon holds while it evaluates the rule, and the state is written back only while the claim is
 * still its own (docs/decisions.md §23). `alert_rule_webhooks` cascades from both sides: deleting
 * a webhook leaves the rule without that target. `alert_events` is the history of transitions.
 */
export async function up(db: AnyDB, dialect: SqlDialect): Promise<void> {
  await db.schema
    .createTable('alert_rules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('traffic_source_id', 'text', (c) => c.notNull().references('traffic_sources.id').onDelete('cascade'))
    .addColumn('condition', 'text', (c) => c.notNull())
    .addColumn('metric', 'text', (c) => c.notNull())
    .addColumn('operator', 'text', (c) => c.notNull())
    .addColumn('threshold', dialect.doubleType, (c) => c.notNull())
    .addColumn('baseline_days', 'integer')
    .addColumn('route', 'text')
    .addColumn('method', 'text')
    .addColumn('for_ms', 'integer', (c) => c.notNull())
    .addColumn('window_ms', 'integer', (c) => c.notNull())
    .addColumn('min_requests', 'integer', (c) => c.notNull())
    .addColumn('repeat_ms', 'integer')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('state_since', 'text', (c) => c.notNull())
    .addColumn('firing_since', 'text')
    .addColumn('clear_since', 'text')
    .addColumn('notified_at', 'text')
    .addColumn('last_value', dialect.doubleType)
    .addColumn('last_requests', 'integer')
    .addColumn('evaluated_at', 'text')
    .addColumn('next_eval_at', 'text', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('alert_rules_source').on('alert_rules').columns(['traffic_source_id', 'id']).execute();
  await db.schema.createIndex('alert_rules_due').on('alert_rules').column('next_eval_at').execute();
  await db.schema
    .createTable('alert_rule_webhooks')
    .addColumn('rule_id', 'text', (c) => c.notNull().references('alert_rules.id').onDelete('cascade'))
    .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('alert_rule_webhooks_pk', ['rule_id', 'webhook_id'])
    .execute();
  await db.schema.createIndex('alert_rule_webhooks_webhook').on('alert_rule_webhooks').column('webhook_id').execute();
  await db.schema
    .createTable('alert_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('rule_id', 'text', (c) => c.notNull().references('alert_rules.id').onDelete('cascade'))
    .addColumn('traffic_source_id', 'text', (c) => c.notNull().references('traffic_sources.id').onDelete('cascade'))
    .addColumn('from_state', 'text', (c) => c.notNull())
    .addColumn('to_state', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('value', dialect.doubleType)
    .addColumn('threshold', dialect.doubleType)
    .addColumn('window_since', 'text', (c) => c.notNull())
    .addColumn('window_until', 'text', (c) => c.notNull())
    .addColumn('requests', 'integer', (c) => c.notNull())
    .addColumn('baseline', 'text')
    .addColumn('notified', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('alert_events_source').on('alert_events').columns(['traffic_source_id', 'id']).execute();
  await db.schema.createIndex('alert_events_rule').on('alert_events').column('rule_id').execute();
}

export async function down(db: AnyDB): Promise<void> {
  await db.schema.dropTable('alert_events').execute();
  await db.schema.dropTable('alert_rule_webhooks').execute();
  await db.schema.dropTable('alert_rules').execute();
}
