import { suggestRules } from '@tapline/shared/lean';
import type { Deps } from '../deps.js';
import { HttpError } from '../http/errors.js';
import type { RouteTable } from '../http/table.js';
import type { Reassignment } from './reassign.js';
import { addRule, listRules, removeRule, rulesOf } from './rules-repo.js';

/** Paths looked at for suggestions at most: the most seen first. */
const MAX_SUGGESTION_PATHS = 100_000;

/**
 * The rules of a source (docs/statistics.md "Rules"): listed, added, removed, and suggested. A
 * change answers once it is stored; the entries it moves move in the background (`reassignment`).
 */
export function routeRuleRoutes(
  deps: Deps,
  reassignment: Reassignment,
): Pick<RouteTable<'statistics'>, 'listRouteRules' | 'createRouteRule' | 'deleteRouteRule' | 'suggestRoutes'> {
  return {
    listRouteRules: async ({ query }, { loaded: source }) => listRules(deps.db, source.id, query),
    createRouteRule: async ({ body }, { loaded: source }) => {
      const rule = await addRule(deps, source.id, body.template);
      reassignment.start();
      return rule;
    },
    deleteRouteRule: async ({ params }, { loaded: source }) => {
      if (!(await removeRule(deps, source.id, params.ruleId)))
        throw new HttpError(404, 'rule_not_found', 'Route rule not found');
      reassignment.start();
      return undefined;
    },
    suggestRoutes: async (_input, { loaded: source }) => {
      // traffic_counts holds each path's stored entries already: no walk over the entries.
      const paths = await deps.db
        .selectFrom('traffic_counts as c')
        .innerJoin('pathnames as p', 'p.id', 'c.pathname_id')
        .select((eb) => ['p.value as pathname', eb.fn.sum<number | string>('c.count').as('entries')])
        .where('c.traffic_source_id', '=', source.id)
        .groupBy('p.value')
        .orderBy('entries', 'desc')
        .limit(MAX_SUGGESTION_PATHS)
        .execute();
      const rules = (await rulesOf(deps.db, deps, [source.id], false)).get(source.id) ?? [];
      return {
        data: suggestRules(
          paths.map((p) => ({ pathname: p.pathname, entries: Number(p.entries) })),
          rules,
        ),
      };
    },
  };
}
