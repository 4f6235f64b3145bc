import { existsSync } from 'node:fs';
import { sql } from 'kysely';
import { ExitError } from '../exit-error.js';
import type { SqlDialect } from '../db/dialect.js';
import { parseLocator, withoutSecret } from '../db/locator.js';
import { type Db, openDatabase } from '../db/open.js';
import { storageOps } from './storage.js';

/**
 * Everything `taplined check` looks at, one line per problem; empty when the database is sound.
 * The dialect's own checks (SQLite: integrity_check, foreign_key_check), then ours, which hold on
 * both dialects: the count rollup equals a count of the entries, key by key, and every entry's
 * stored exchange reads back. These read every entry once: a check, not a health probe.
 */
export async function checkDatabase(db: Db, dialect: SqlDialect): Promise<string[]> {
  const problems = await storageOps(db, dialect).integrityProblems();
  const counted = await db
    .selectFrom('http_traffic')
    .select(['traffic_source_id', 'pathname_id', 'method', 'status', (eb) => eb.fn.countAll<number | string>().as('n')])
    .groupBy(['traffic_source_id', 'pathname_id', 'method', 'status'])
    .execute();
  const rollup = await db
    .selectFrom('traffic_counts')
    .select(['traffic_source_id', 'pathname_id', 'method', 'status', 'count'])
    .execute();
  const key = (r: { traffic_source_id: string; pathname_id: string; method: string; status: number }) =>
    `${r.traffic_source_id} ${r.pathname_id} ${r.method} ${r.status}`;
  const expected = new Map(counted.map((r) => [key(r), Number(r.n)]));
  for (const r of rollup) {
    const n = expected.get(key(r)) ?? 0;
    if (Number(r.count) !== n) problems.push(`rollup says ${r.count} entries for ${key(r)}, there are ${n}`);
    expected.delete(key(r));
  }
  for (const [k, n] of expected) problems.push(`rollup has no row for ${k}, which has ${n} entries`);
  problems.push(...(await unreadableExchanges(db, dialect)));
  return problems;
}

/** Every stored exchange must read back as JSON: a compressed one needs the dictionary it names. */
async function unreadableExchanges(db: Db, dialect: SqlDialect): Promise<string[]> {
  let unreadable = 0;
  const parses = (text: string) => {
    try {
      JSON.parse(text);
      return true;
    } catch {
      return false;
    }
  };
  // Paged by the id as stored, read without the id codec (db/stored-values.ts): a database this
  // version has not upgraded yet holds text ids, which the codec would compare as bytes.
  const raw = db.withoutPlugins();
  for (let after: unknown = '', read = 0; ;) {
    let rows: { id: unknown; request: string; response: string }[];
    try {
      rows = await raw
        .selectFrom('http_traffic as t')
        .select([
          't.id',
          dialect.payloadText(sql.ref('t.request_headers')).as('request'),
          dialect.payloadText(sql.ref('t.response_headers')).as('response'),
        ])
        .where(sql<boolean>`t.id > ${after}`)
        .orderBy('t.id')
        .limit(1000)
        .execute();
    } catch (error) {
      return [
        `entries after the first ${read} cannot be read: ${error instanceof Error ? error.message : String(error)}`,
      ];
    }
    if (rows.length === 0) break;
    unreadable += rows.filter((r) => !parses(r.request) || !parses(r.response)).length;
    read += rows.length;
    after = rows[rows.length - 1]?.id ?? after;
  }
  return unreadable > 0 ? [`${unreadable} entries have header sets that do not read back as JSON`] : [];
}

/**
 * `taplined check` on the database `--db` names, as it is (no migration runs first). A database
 * that will not open or read is a problem too.
 */
export async function checkDatabaseAt(database: string): Promise<string[]> {
  const locator = parseLocator(database);
  if (locator.backend === 'sqlite' && (locator.file === ':memory:' || !existsSync(locator.file)))
    throw new ExitError(`no database at ${locator.file}`);
  let opened: ReturnType<typeof openDatabase> | undefined;
  try {
    opened = openDatabase(database, { pool: 1 });
    return await checkDatabase(opened.db, opened.dialect);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return [
      `the database cannot be read: ${withoutSecret(message, locator.backend === 'postgres' ? locator.password : null)}`,
    ];
  } finally {
    await opened?.close().catch(() => undefined);
  }
}
