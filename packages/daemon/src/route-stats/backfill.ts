import { resolveRoute } from '@tapline/shared/lean';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import { type Clock, isoNow } from '../clock.js';
import type { SqlDialect } from '../db/dialect.js';
import type { Db, Executor } from '../db/open.js';
import { bodyBytes, type StatInput } from './rollup.js';
import { createPacedJob, type PacedJob } from './paced-job.js';
import { findOrCreateRoute } from './resolve.js';
import { rulesOf } from './rules-repo.js';

/** An entry that has just been given its route, as the statistics need it. */
export interface AssignedEntry {
  readonly id: string;
  readonly traffic_source_id: string;
  readonly route_id: string;
}

/** Run in the transaction that gives entries their routes (the statistics count them there). */
export type OnAssigned = (trx: Executor, entries: readonly AssignedEntry[]) => Promise<void>;

/** Entries per transaction: a few milliseconds of work, so ingest waits little behind one. */
export const BACKFILL_BATCH = 500;

/**
 * Gives up to `limit` entries stored before routes existed (route_id null) their route, in one
 * transaction; returns how many it gave. Resumable by construction: what is done is no longer
 * null. Two daemons on one database may pick the same entries: the update's `route_id is null`
 * is checked again under the row lock, and only the rows it changed are handed to `onAssigned`,
 * so no entry is counted twice.
 */
export async function backfillRoutes(
  deps: { readonly db: Db; readonly dialect: SqlDialect; readonly clock: Clock },
  onAssigned: OnAssigned | undefined,
  limit = BACKFILL_BATCH,
): Promise<number> {
  return deps.db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom('http_traffic as t')
      .innerJoin('pathnames as p', 'p.id', 't.pathname_id')
      .select(['t.id', 't.traffic_source_id', 't.route', 'p.value as pathname'])
      .where('t.route_id', 'is', null)
      .orderBy('t.id')
      .limit(limit)
      .execute();
    if (rows.length === 0) return 0;
    const now = isoNow(deps.clock);
    // Under the sources' rules, held until the commit (rules-repo.ts), as ingest reads them.
    const rules = await rulesOf(trx, deps, [...new Set(rows.map((r) => r.traffic_source_id))], true);
    const byRoute = new Map<string, { sourceId: string; template: ReturnType<typeof resolveRoute>; ids: string[] }>();
    for (const row of rows) {
      const route = resolveRoute(row.pathname, row.route, rules.get(row.traffic_source_id));
      const key = `${row.traffic_source_id} ${route.template}`;
      const found = byRoute.get(key);
      if (found) found.ids.push(row.id);
      else byRoute.set(key, { sourceId: row.traffic_source_id, template: route, ids: [row.id] });
    }
    const assigned: AssignedEntry[] = [];
    for (const [, { sourceId, template, ids }] of [...byRoute].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const { id: routeId } = await findOrCreateRoute(trx, sourceId, template, now);
      const changed = await trx
        .updateTable('http_traffic')
        .set({ route_id: routeId })
        .where('id', 'in', ids)
        .where('route_id', 'is', null)
        .returning('id')
        .execute();
      for (const { id } of changed) assigned.push({ id, traffic_source_id: sourceId, route_id: routeId });
    }
    if (onAssigned && assigned.length > 0) await onAssigned(trx, assigned);
    return rows.length;
  });
}

/**
 * The statistics of entries the backfill has just given a route: read back in its transaction
 * (their bodies' sizes too), so they count exactly once, as ingest counts new ones.
 */
export function statsOfAssigned(
  deps: { readonly dialect: SqlDialect },
  add: (trx: Executor, inputs: readonly StatInput[]) => Promise<void>,
): OnAssigned {
  return async (trx, assigned) => add(trx, await statInputsOf(trx, deps, assigned));
}

/** What the statistics take of stored entries, each under the route given in `assigned` (read in `trx`). */
export async function statInputsOf(
  trx: Executor,
  deps: { readonly dialect: SqlDialect },
  assigned: readonly AssignedEntry[],
): Promise<(StatInput & { readonly id: string })[]> {
  const routeOf = new Map(assigned.map((a) => [a.id, a.route_id]));
  const inputs: (StatInput & { readonly id: string })[] = [];
  for (let i = 0; i < assigned.length; i += BACKFILL_BATCH) {
    const ids = assigned.slice(i, i + BACKFILL_BATCH).map((a) => a.id);
    const rows = await trx
      .selectFrom('http_traffic as t')
      .select(['t.id', 't.traffic_source_id', 't.method', 't.domain_id', 't.created_at', 't.status', 't.elapsed_time'])
      .select([
        sql<string | null>`${deps.dialect.payloadText(sql.ref('t.request_body'))}`.as('request_body'),
        sql<string | null>`${deps.dialect.payloadText(sql.ref('t.response_body'))}`.as('response_body'),
      ])
      .where('t.id', 'in', ids)
      .execute();
    for (const row of rows) {
      const routeId = routeOf.get(row.id);
      if (!routeId) continue;
      inputs.push({
        id: row.id,
        sourceId: row.traffic_source_id,
        routeId,
        method: row.method,
        domainId: row.domain_id,
        createdAt: row.created_at,
        status: row.status,
        elapsedTime: row.elapsed_time,
        requestBytes: bodyBytes(row.request_body),
        responseBytes: bodyBytes(row.response_body),
      });
    }
  }
  return inputs;
}

export type Backfill = PacedJob;

/** The background job: batch after batch until no entry lacks a route (route-stats/paced-job.ts). */
export function createBackfill(deps: {
  readonly db: Db;
  readonly dialect: SqlDialect;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly onAssigned?: OnAssigned;
}): Backfill {
  return createPacedJob(deps, {
    step: () => backfillRoutes(deps, deps.onAssigned),
    done: 'route templates given to stored entries',
    stopped: 'route backfill stopped; it resumes at the next start',
  });
}
