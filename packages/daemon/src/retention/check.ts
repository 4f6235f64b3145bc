import { existsSync } from 'node:fs';
import type { ExpressionBuilder } from 'kysely';
import { AdminError } from '../admin/commands.js';
import type { SqlDialect } from '../db/dialect.js';
import { parseLocator, withoutSecret } from '../db/locator.js';
import { type Db, openDatabase } from '../db/open.js';
import type { DB } from '../db/schema.js';
import { storageOps } from './storage.js';

/**
 * Everything `taplined check` looks at, one line per problem; empty when the database is sound.
 * The dialect's own checks (SQLite: integrity_check, foreign_key_check), then ours, which hold on
 * both dialects: the count rollup equals a count of the entries, key by key, and every entry has
 * its request and response rows. These read every entry once: a check, not a health probe.
 */
export async function checkDatabase(db: Db, dialect: SqlDialect): Promise<string[]> {
  const problems = await storageOps(db, dialect).integrityProblems();
  const counted = await db
    .selectFrom('http_traffic')
    .select(['traffic_source_id', 'pathname_id', 'method', 'status', (eb) => eb.fn.countAll<number | string>().as('n')])
    .groupBy(['traffic_source_id', 'pathname_id', 'method', 'status'])
    .execute();
  const rollup = await db.selectFrom('traffic_counts').select(['traffic_source_id', 'pathname_id', 'method', 'status', 'count']).execute();
  const key = (r: { traffic_source_id: string; pathname_id: string; method: string; status: number }) => `${r.traffic_source_id} ${r.pathname_id} ${r.method} ${r.status}`;
  const expected = new Map(counted.map((r) => [key(r), Number(r.n)]));
  for (const r of rollup) {
    const n = expected.get(key(r)) ?? 0;
    if (Number(r.count) !== n) problems.push(`rollup says ${r.count} entries for ${key(r)}, there are ${n}`);
    expected.delete(key(r));
  }
  for (const [k, n] of expected) problems.push(`rollup has no row for ${k}, which has ${n} entries`);
  const count = (eb: ExpressionBuilder<DB, 'http_traffic'>) => eb.fn.countAll<number | string>().as('n');
  const missing = {
    requests: await db.selectFrom('http_traffic').leftJoin('requests', 'requests.id', 'http_traffic.request_id').where('requests.id', 'is', null).select(count).executeTakeFirstOrThrow(),
    responses: await db.selectFrom('http_traffic').leftJoin('responses', 'responses.id', 'http_traffic.response_id').where('responses.id', 'is', null).select(count).executeTakeFirstOrThrow(),
  };
  for (const [side, row] of Object.entries(missing)) if (Number(row.n) > 0) problems.push(`${row.n} entries have no row in ${side}`);
  return problems;
}

/**
 * `taplined check` on the database `--db` names, as it is (no migration runs first). A database
 * that will not open or read is a problem too.
 */
export async function checkDatabaseAt(database: string): Promise<string[]> {
  const locator = parseLocator(database);
  if (locator.backend === 'sqlite' && (locator.file === ':memory:' || !existsSync(locator.file))) throw new AdminError(`no database at ${locator.file}`);
  let opened: ReturnType<typeof openDatabase> | undefined;
  try {
    opened = openDatabase(database, { pool: 1 });
    return await checkDatabase(opened.db, opened.dialect);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return [`the database cannot be read: ${withoutSecret(message, locator.backend === 'postgres' ? locator.password : null)}`];
  } finally {
    await opened?.close().catch(() => undefined);
  }
}
