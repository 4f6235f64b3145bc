import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

// Frozen: a migration that has shipped is never edited; add a new one instead.
// `any` is Kysely's documented type for migrations, which must not depend on today's schema.
// The dialect came with the PostgreSQL backend, before any PostgreSQL database existed; what it
// gives SQLite (`real`) is what this migration always wrote there.
type AnyDB = Kysely<unknown>;

const cascade = 'cascade' as const;

export async function up(db: AnyDB, dialect: SqlDialect): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('traffic_sources')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete(cascade))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('traffic_domain', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('traffic_sources_user_name', ['user_id', 'name'])
    .execute();
  await db.schema
    .createIndex('traffic_sources_user_created')
    .on('traffic_sources')
    .columns(['user_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete(cascade))
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('source_id', 'text', (c) => c.references('traffic_sources.id').onDelete(cascade))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('tokens_user').on('tokens').column('user_id').execute();

  await db.schema
    .createTable('domains')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('traffic_source_id', 'text', (c) => c.notNull().references('traffic_sources.id').onDelete(cascade))
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('domains_source_value', ['traffic_source_id', 'value'])
    .execute();

  await db.schema
    .createTable('pathnames')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('traffic_source_id', 'text', (c) => c.notNull().references('traffic_sources.id').onDelete(cascade))
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domains.id').onDelete(cascade))
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('pathnames_domain_value', ['domain_id', 'value'])
    .execute();
  await db.schema
    .createIndex('pathnames_source_created')
    .on('pathnames')
    .columns(['traffic_source_id', 'created_at', 'id'])
    .execute();

  for (const table of ['requests', 'responses']) {
    let builder = db.schema
      .createTable(table)
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('traffic_source_id', 'text', (c) => c.notNull().references('traffic_sources.id').onDelete(cascade))
      .addColumn('headers', 'text', (c) => c.notNull())
      .addColumn('body', 'text');
    if (table === 'requests') builder = builder.addColumn('query_params', 'text', (c) => c.notNull());
    await builder.execute();
    await db.schema.createIndex(`${table}_source`).on(table).column('traffic_source_id').execute();
  }

  await db.schema
    .createTable('http_traffic')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('traffic_source_id', 'text', (c) => c.notNull().references('traffic_sources.id').onDelete(cascade))
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domains.id').onDelete(cascade))
    .addColumn('pathname_id', 'text', (c) => c.notNull().references('pathnames.id').onDelete(cascade))
    .addColumn('request_id', 'text', (c) => c.notNull().references('requests.id').onDelete(cascade))
    .addColumn('response_id', 'text', (c) => c.notNull().references('responses.id').onDelete(cascade))
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('protocol', 'text', (c) => c.notNull())
    .addColumn('elapsed_time', dialect.doubleType, (c) => c.notNull())
    .addColumn('traffic_user_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // Every documented filter leads with the source and ends with the newest-first order, so a
  // filtered first page reads only the rows it returns.
  const trafficIndexes: Record<string, string[]> = {
    http_traffic_source_created: ['traffic_source_id', 'created_at', 'id'],
    http_traffic_source_level: ['traffic_source_id', 'level', 'created_at', 'id'],
    http_traffic_source_status: ['traffic_source_id', 'status', 'created_at', 'id'],
    http_traffic_source_method: ['traffic_source_id', 'method', 'created_at', 'id'],
    http_traffic_source_domain: ['traffic_source_id', 'domain_id', 'created_at', 'id'],
    http_traffic_source_pathname: ['traffic_source_id', 'pathname_id', 'created_at', 'id'],
  };
  for (const [name, columns] of Object.entries(trafficIndexes)) {
    await db.schema.createIndex(name).on('http_traffic').columns(columns).execute();
  }
  // Deleting a request or response row is only ever done through the source; these keep the
  // cascade from scanning http_traffic.
  await db.schema.createIndex('http_traffic_request').on('http_traffic').column('request_id').execute();
  await db.schema.createIndex('http_traffic_response').on('http_traffic').column('response_id').execute();
  await db.schema.createIndex('http_traffic_pathname').on('http_traffic').column('pathname_id').execute();
  await db.schema.createIndex('http_traffic_domain').on('http_traffic').column('domain_id').execute();

  await db.schema
    .createTable('core_logs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('traffic_source_id', 'text', (c) => c.notNull().references('traffic_sources.id').onDelete(cascade))
    .addColumn('http_traffic_id', 'text', (c) => c.references('http_traffic.id').onDelete('set null'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('layer', 'text', (c) => c.notNull())
    .addColumn('stack', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('core_logs_source_created')
    .on('core_logs')
    .columns(['traffic_source_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('core_logs_traffic').on('core_logs').column('http_traffic_id').execute();

  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('traffic_source_id', 'text', (c) => c.notNull().references('traffic_sources.id').onDelete(cascade))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('secret', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('webhooks_source_target', ['traffic_source_id', 'type', 'level', 'value'])
    .execute();
  await db.schema
    .createIndex('webhooks_source_created')
    .on('webhooks')
    .columns(['traffic_source_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: AnyDB): Promise<void> {
  for (const table of [
    'webhooks',
    'core_logs',
    'http_traffic',
    'responses',
    'requests',
    'pathnames',
    'domains',
    'tokens',
    'traffic_sources',
    'settings',
    'users',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
