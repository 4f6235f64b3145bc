import { resolveRoute } from '@tapline/shared/lean';
import type { ResolvedRoute } from '@tapline/shared';
import type { Logger } from 'pino';
import { type Clock, isoNow } from '../clock.js';
import { isConflict } from '../db/conflict.js';
import type { SqlDialect } from '../db/dialect.js';
import type { Db, Executor } from '../db/open.js';
import { BACKFILL_BATCH, statInputsOf } from './backfill.js';
import { moveStats } from './move-stats.js';
import { createPacedJob, type PacedJob } from './paced-job.js';
import { findOrCreateRoute } from './resolve.js';
import { rulesOf } from './rules-repo.js';

export interface ReassignDeps {
  readonly db: Db;
  readonly dialect: SqlDialect;
  readonly clock: Clock;
  /** Off with `--no-stats`: entries move, no numbers follow them. */
  readonly stats: boolean;
}

interface Move {
  readonly id: string;
  readonly from: string;
  readonly to: string;
}

/** Moves the looked-at rows whose template the rules now give differs; answers the moves made. */
async function moveEntries(
  trx: Executor,
  sourceId: string,
  rows: readonly { id: string; route: string | null; route_id: string; template: string; pathname: string }[],
  rules: readonly string[],
  now: string,
): Promise<Move[]> {
  const wanted = new Map<string, { route: ResolvedRoute; byFrom: Map<string, string[]> }>();
  for (const row of rows) {
    const route = resolveRoute(row.pathname, row.route, rules);
    if (route.template === row.template) continue;
    let target = wanted.get(route.template);
    if (!target) wanted.set(route.template, (target = { route, byFrom: new Map() }));
    const ids = target.byFrom.get(row.route_id) ?? [];
    ids.push(row.id);
    target.byFrom.set(row.route_id, ids);
  }
  const moves: Move[] = [];
  // Templates in sorted order, as ingest creates them, so the two wait for each other rather than deadlock.
  for (const [, { route, byFrom }] of [...wanted].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const { id: to } = await findOrCreateRoute(trx, sourceId, route, now);
    for (const [from, ids] of byFrom) {
      // `route_id = from` again under the row lock: only rows this transaction really moved count.
      const changed = await trx
        .updateTable('http_traffic')
        .set({ route_id: to })
        .where('id', 'in', ids)
        .where('route_id', '=', from)
        .returning('id')
        .execute();
      for (const { id } of changed) moves.push({ id, from, to });
    }
  }
  return moves;
}

/**
 * One batch of the reassignment job (docs/statistics.md "Rules"): the next `limit` stored entries
 * of a source whose rules changed, in id order after the job's mark, each filed under the
 * template the rules give it now, its numbers moved with it, and the mark advanced, all in one
 * transaction. Resumable: a stopped job starts at its mark. The job's row is claimed `SKIP
 * LOCKED`, so two daemons on one PostgreSQL database work on different sources, never the same
 * entries twice; a rule change waits for the batch holding the row, then sends the job back to
 * the start. Entries without a route yet are the backfill's (it reads the rules as they are).
 * Answers the entries looked at (plus 1 for a job finished), 0 when no job is left.
 */
export async function reassignBatch(deps: ReassignDeps, limit = BACKFILL_BATCH): Promise<number> {
  return deps.db.transaction().execute(async (trx) => {
    const job = await deps.dialect
      .lockRows(trx.selectFrom('route_reassignments').selectAll().orderBy('traffic_source_id').limit(1), 'skip')
      .executeTakeFirst();
    if (!job) return 0;
    const sourceId = job.traffic_source_id;
    let query = trx
      .selectFrom('http_traffic as t')
      .innerJoin('pathnames as p', 'p.id', 't.pathname_id')
      .innerJoin('routes as r', 'r.id', 't.route_id')
      .select(['t.id', 't.route', 't.route_id', 'r.template', 'p.value as pathname'])
      .where('t.traffic_source_id', '=', sourceId)
      .orderBy('t.id')
      .limit(limit);
    if (job.after_id !== null) query = query.where('t.id', '>', job.after_id);
    const rows = (await query.execute()).flatMap((r) => (r.route_id === null ? [] : [{ ...r, route_id: r.route_id }]));
    if (rows.length === 0) {
      await trx
        .deleteFrom('route_reassignments')
        .where('traffic_source_id', '=', sourceId)
        .where('generation', '=', job.generation)
        .execute();
      return 1;
    }
    const rules = (await rulesOf(trx, deps, [sourceId], false)).get(sourceId) ?? [];
    const moves = await moveEntries(trx, sourceId, rows, rules, isoNow(deps.clock));
    if (deps.stats && moves.length > 0) {
      const removed = await statInputsOf(
        trx,
        deps,
        moves.map((m) => ({ id: m.id, traffic_source_id: sourceId, route_id: m.from })),
      );
      const to = new Map(moves.map((m) => [m.id, m.to]));
      const added = removed.map((input) => ({ ...input, routeId: to.get(input.id) ?? input.routeId }));
      await moveStats(trx, deps.dialect, removed, added);
    }
    await trx
      .updateTable('route_reassignments')
      .set({ after_id: rows[rows.length - 1]?.id ?? null })
      .where('traffic_source_id', '=', sourceId)
      .execute();
    return rows.length;
  });
}

export type Reassignment = PacedJob;

/** The job in the background: started with the daemon (a stopped one resumes) and after each rule change. */
export function createReassignment(deps: ReassignDeps & { readonly logger: Logger }): Reassignment {
  return createPacedJob(deps, {
    step: async () => {
      try {
        return await reassignBatch(deps);
      } catch (error) {
        // Lost a race with ingest on PostgreSQL (a deadlock, rolled back whole): the batch runs again.
        if (isConflict(error)) return 1;
        throw error;
      }
    },
    done: 'stored entries looked at again under changed route rules',
    stopped: 'route rule reassignment stopped; it resumes at the next start',
  });
}
