import { type Kysely, sql } from 'kysely';

// Frozen: a migration that has shipped is never edited; add a new one instead.
// `any` is Kysely's documented type for migrations, which must not depend on today's schema.
type AnyDB = Kysely<unknown>;

/**
 * The stream's order: every entry gets `stream_seq`, a number taken from the one-row counter
 * `stream_sequence` as the last write of its ingest transaction. The counter's row lock is held
 * until commit, so on PostgreSQL (several daemons, entries committing in any id order) a number is
 * visible only once every smaller one is: readers that follow `stream_seq` never skip an entry
 * (docs/decisions.md §9.7). Existing entries are numbered in id order, which was the stream's order.
 */
export async function up(db: AnyDB): Promise<void> {
  await db.schema
    .alterTable('http_traffic')
    .addColumn('stream_seq', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  // The same text runs on SQLite (UPDATE … FROM since 3.33) and PostgreSQL.
  await sql`update http_traffic set stream_seq = numbered.n
    from (select id, row_number() over (order by id) as n from http_traffic) as numbered
    where http_traffic.id = numbered.id`.execute(db);
  await db.schema
    .createIndex('http_traffic_source_stream')
    .on('http_traffic')
    .columns(['traffic_source_id', 'stream_seq'])
    .unique()
    .execute();
  await db.schema
    .createTable('stream_sequence')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into stream_sequence (name, value) select 'traffic', coalesce(max(stream_seq), 0) from http_traffic`.execute(
    db,
  );
}

export async function down(db: AnyDB): Promise<void> {
  await db.schema.dropTable('stream_sequence').execute();
  await db.schema.dropIndex('http_traffic_source_stream').execute();
  await db.schema.alterTable('http_traffic').dropColumn('stream_seq').execute();
}
