import type { PageQuery, RouteSummary } from '@tapline/shared';
import type { Db } from '../db/open.js';
import { newestFirst } from '../http/pagination.js';
import type { Page } from '../http/pagination.js';

/**
 * `GET /routes/:id`: a source's templates, newest first, each with its origin and how many stored
 * entries it holds (counted on `http_traffic_route_created` for the page's routes only).
 */
export async function listRoutes(db: Db, sourceId: string, page: PageQuery): Promise<Page<RouteSummary>> {
  const base = db.selectFrom('routes').where('traffic_source_id', '=', sourceId);
  const listed = await newestFirst(
    page,
    base,
    (q) => q.select(['id', 'template', 'origin', 'created_at']),
    (r) => r,
  );
  const ids = listed.data.map((r) => r.id);
  const counts =
    ids.length === 0
      ? []
      : await db
          .selectFrom('http_traffic')
          .select((eb) => ['route_id', eb.fn.countAll<number | string>().as('n')])
          .where('route_id', 'in', ids)
          .groupBy('route_id')
          .execute();
  const entries = new Map(counts.map((c) => [c.route_id, Number(c.n)]));
  return {
    ...listed,
    data: listed.data.map((r) => ({
      id: r.id,
      template: r.template,
      origin: r.origin,
      entries: entries.get(r.id) ?? 0,
      createdAt: r.created_at,
    })),
  };
}
