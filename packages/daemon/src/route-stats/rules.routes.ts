import { contract, suggestRules } from '@tapline/shared';
import type { Router } from 'express';
import type { Deps } from '../deps.js';
import { HttpError } from '../http/errors.js';
import { mount } from '../http/mount.js';
import { loadAuthorizedSource } from '../traffic-sources/load.js';
import type { Reassignment } from './reassign.js';
import { addRule, listRules, removeRule, rulesOf } from './rules-repo.js';

/** Paths looked at for suggestions at most: the most seen first. */
const MAX_SUGGESTION_PATHS = 100_000;

/**
 * The rules of a source (docs/statistics.md "Rules"): listed, added, removed, and suggested. A
 * change answers once it is stored; the entries it moves move in the background (`reassignment`).
 */
export function routeRuleRoutes(router: Router, deps: Deps, reassignment: Reassignment): void {
  mount(router, deps, contract.listRouteRules, async ({ params, query }, ctx) => {
    const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
    return listRules(deps.db, source.id, query);
  });
  mount(router, deps, contract.createRouteRule, async ({ params, body }, ctx) => {
    const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
    const rule = await addRule(deps, source.id, body.template);
    reassignment.start();
    return rule;
  });
  mount(router, deps, contract.deleteRouteRule, async ({ params }, ctx) => {
    const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
    if (!(await removeRule(deps, source.id, params.ruleId)))
      throw new HttpError(404, 'rule_not_found', 'Route rule not found');
    reassignment.start();
    return undefined;
  });
  mount(router, deps, contract.suggestRoutes, async ({ params }, ctx) => {
    const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
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
  });
}
