import { resolveRoute } from '@tapline/shared/lean';
import type { ResolvedRoute, RouteOrigin } from '@tapline/shared';
import { newId } from '../clock.js';
import type { Executor } from '../db/open.js';

/** A template as stored: its row's id. */
export interface StoredRoute {
  readonly id: string;
  readonly template: string;
}

/** What a record offers to resolve its route: its path, and the template its client sent. */
interface Routed {
  readonly pathname: string;
  readonly route: string | null;
}

interface Group {
  readonly source: { readonly id: string };
  readonly records: readonly Routed[];
}

export interface RouteResolver {
  /**
   * Finds or creates, in `trx`, every template the group's records resolve to (sorted by key, as
   * names are, so two daemons creating the same templates wait for each other rather than
   * deadlock); returns each record's route. Call after the domains and pathnames.
   */
  resolve(
    trx: Executor,
    group: readonly Group[],
    now: string,
    rules: ReadonlyMap<string, readonly string[]>,
  ): Promise<ResolvedGroup>;
  /** A transaction failed: ids cached may name rows that are gone. */
  forget(): void;
}

/** One group's routes; on PostgreSQL a second group may be resolved while this one is stored. */
export interface ResolvedGroup {
  /** Each record's route. */
  readonly routeOf: (sourceId: string, record: Routed) => StoredRoute;
  /** The group's transaction committed: the ids it learned may be cached. */
  committed(): void;
}

const RANK: Readonly<Record<RouteOrigin, number>> = { sent: 0, rule: 1, inferred: 2 };
/** Bounds both caches; a busy source has a few hundred templates and a few thousand paths. */
const MAX_CACHED = 20_000;

/**
 * Routes of ingested records. A path's template depends on the path, what its client sent and
 * its source's rules (read in each transaction, route-stats/rules-repo.ts), and is memoised per
 * source for as long as that source's rules stay the same.
 */
export function createRouteResolver(): RouteResolver {
  // Replaced, never cleared: a group resolved before keeps the one it skipped names by.
  let cache = new Map<string, { id: string; origin: RouteOrigin }>();
  const memos = new Map<string, { rules: string; resolved: Map<string, ResolvedRoute> }>();
  let memoSize = 0;

  const routeOf = (sourceId: string, rules: readonly string[], record: Routed): ResolvedRoute => {
    const signature = rules.join('\u0000');
    if (memoSize > MAX_CACHED) {
      memos.clear();
      memoSize = 0;
    }
    let memo = memos.get(sourceId);
    if (!memo || memo.rules !== signature) memos.set(sourceId, (memo = { rules: signature, resolved: new Map() }));
    const key = `${record.route ?? ''}\u0000${record.pathname}`;
    let route = memo.resolved.get(key);
    if (!route) {
      memo.resolved.set(key, (route = resolveRoute(record.pathname, record.route, rules)));
      memoSize += 1;
    }
    return route;
  };

  return {
    async resolve(trx, group, now, rulesBySource) {
      const learned = new Map<string, { id: string; origin: RouteOrigin }>();
      const cached = cache;
      const rulesFor = (sourceId: string) => rulesBySource.get(sourceId) ?? [];
      const wanted = new Map<string, { sourceId: string; route: ResolvedRoute }>();
      for (const { source, records } of group) {
        for (const record of records) {
          const route = routeOf(source.id, rulesFor(source.id), record);
          const key = `${source.id} ${route.template}`;
          const known = cached.get(key);
          const pending = wanted.get(key);
          if (known && RANK[known.origin] <= RANK[route.origin]) continue;
          if (!pending || RANK[route.origin] < RANK[pending.route.origin])
            wanted.set(key, { sourceId: source.id, route });
        }
      }
      for (const [key, { sourceId, route }] of [...wanted].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        learned.set(key, await findOrCreateRoute(trx, sourceId, route, now));
      }
      return {
        routeOf: (sourceId, record) => {
          const { template } = routeOf(sourceId, rulesFor(sourceId), record);
          const key = `${sourceId} ${template}`;
          const found = learned.get(key) ?? cached.get(key);
          if (!found) throw new Error(`route ${key} was not resolved`);
          return { id: found.id, template };
        },
        committed() {
          if (cache.size > MAX_CACHED) cache = new Map();
          for (const [key, value] of learned) cache.set(key, value);
        },
      };
    },
    forget() {
      cache = new Map();
    },
  };
}

/**
 * Found or created (`onConflict` for two writers racing, as domains and pathnames); a template
 * reached in a stronger way than its row says (sent, where it was inferred) has its origin raised.
 */
export async function findOrCreateRoute(
  trx: Executor,
  sourceId: string,
  route: ResolvedRoute,
  now: string,
): Promise<{ id: string; origin: RouteOrigin }> {
  const find = () =>
    trx
      .selectFrom('routes')
      .select(['id', 'origin'])
      .where('traffic_source_id', '=', sourceId)
      .where('template', '=', route.template)
      .executeTakeFirst();
  let found = await find();
  if (!found) {
    await trx
      .insertInto('routes')
      .values({
        id: newId(),
        traffic_source_id: sourceId,
        template: route.template,
        origin: route.origin,
        created_at: now,
      })
      .onConflict((oc) => oc.columns(['traffic_source_id', 'template']).doNothing())
      .execute();
    found = await find();
    if (!found) throw new Error(`route ${route.template} vanished after its insert`);
  }
  if (RANK[route.origin] < RANK[found.origin]) {
    await trx.updateTable('routes').set({ origin: route.origin }).where('id', '=', found.id).execute();
    return { id: found.id, origin: route.origin };
  }
  return found;
}
