import type { Kysely } from 'kysely';

// Frozen: a migration that has shipped is never edited; add a new one instead.
// `any` is Kysely's documented type for migrations, which must not depend on today's schema.
type AnyDB = Kysely<unknown>;

const cascade = 'cascade' as const;

/**
 * The webhook outbox. A delivery row is written in the same transaction as the traffic entry it
 * announces, so a crash never loses a notification that was due; every attempt to send it is
 * kept beside it. Deleting a webhook cascades to all three tables.
 */
export async function up(db: AnyDB): Promise<void> {
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete(cascade))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('http_traffic_id', 'text')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // The worker's one question: what is due now?
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_webhook')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id').onDelete(cascade))
    .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete(cascade))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('http_traffic_id', 'text')
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_attempts_webhook_created')
    .on('webhook_attempts')
    .columns(['webhook_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').column('delivery_id').execute();

  // Storm control: the current one-minute window of each webhook (one row per webhook).
  await db.schema
    .createTable('webhook_windows')
    .addColumn('webhook_id', 'text', (c) => c.primaryKey().references('webhooks.id').onDelete(cascade))
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('messages', 'integer', (c) => c.notNull())
    .addColumn('summary_id', 'text')
    .execute();
}

export async function down(db: AnyDB): Promise<void> {
  for (const table of ['webhook_windows', 'webhook_attempts', 'webhook_deliveries'])
    await db.schema.dropTable(table).execute();
}
