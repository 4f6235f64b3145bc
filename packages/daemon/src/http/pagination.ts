import type { PageQuery, PaginationMeta } from '@tapline/shared';
import { type SelectQueryBuilder, sql } from 'kysely';

export interface Page<T> {
  readonly data: T[];
  readonly meta: PaginationMeta;
}

/**
 * The one place that turns page/limit into offset and meta. A page past the end answers an
 * empty list with the true total, without reading rows. The first page, which most requests ask
 * for, reads its rows while the total is counted: with a pool (PostgreSQL) the two statements
 * run at once, and the request waits for one round trip fewer.
 */
export async function paginate<T>(
  page: PageQuery,
  count: () => Promise<number>,
  rows: (limit: number, offset: number) => Promise<T[]>,
): Promise<Page<T>> {
  const offset = (page.page - 1) * page.limit;
  const meta = (total: number) => ({ total, page: page.page, limit: page.limit });
  if (offset === 0) {
    const [total, data] = await Promise.all([count(), rows(page.limit, 0)]);
    return { data, meta: meta(total) };
  }
  const total = await count();
  return { data: offset >= total ? [] : await rows(page.limit, offset), meta: meta(total) };
}

/** `select count(*)` of a query's rows, as a number in every dialect. */
export async function countRows<D, TB extends keyof D>(qb: SelectQueryBuilder<D, TB, object>): Promise<number> {
  // Kysely cannot see the alias through the generic builder; the one column is `n`, typed as
  // drivers give a count (SQLite a number, PostgreSQL a bigint's text).
  const row = await qb
    .select((eb) => eb.fn.countAll().as('n'))
    .$castTo<{ n: number | bigint | string }>()
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * One page of a list in the API's order, newest first (`created_at` desc, then `id` desc: ids
 * are UUIDv7, so the order is stable within a millisecond), with its exact total. `select` picks
 * the columns, `map` turns a row into its wire object.
 */
export function newestFirst<DB, TB extends keyof DB, O, T>(
  page: PageQuery,
  base: SelectQueryBuilder<DB, TB, object>,
  select: (query: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TB, O>,
  map: (row: O) => T,
): Promise<Page<T>> {
  return paginate(
    page,
    () => countRows(base),
    async (limit, offset) => {
      const rows = await select(base)
        .orderBy(sql.ref('created_at'), 'desc')
        .orderBy(sql.ref('id'), 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows.map(map);
    },
  );
}
