import { contract, PROMETHEUS_TEXT } from '@tapline/shared';
import { Registry } from 'prom-client';
import type { Router } from 'express';
import type { Deps } from '../deps.js';
import { mountRaw, requireScope } from '../http/mount.js';
import { loadAuthorizedSource } from '../traffic-sources/load.js';
import type { HealthMetrics } from './health.js';
import type { TrafficMetrics } from './traffic.js';

/** The ids of a user's sources, to drop the series of deleted ones from what they are sent. */
async function sourceIdsOf(deps: Deps, userId: string): Promise<Set<string>> {
  const rows = await deps.db.selectFrom('traffic_sources').select('id').where('user_id', '=', userId).execute();
  return new Set(rows.map((r) => r.id));
}

/**
 * `GET /metrics` (docs/statistics.md, "Prometheus"): the traffic series the token may see and
 * the daemon's health, written by prom-client. A token restricted to a source, or `?source=`,
 * gets that source's series; `?source=` checks it as every source route does (404, then 403).
 */
export function metricsRoutes(router: Router, deps: Deps, traffic: TrafficMetrics, health: HealthMetrics): void {
  mountRaw(router, deps, contract.getMetrics, async ({ query }, ctx, _req, res) => {
    const { principal } = ctx;
    const named = query.source ?? principal.sourceId ?? undefined;
    let series: Registry;
    if (named !== undefined) series = traffic.forSource((await loadAuthorizedSource(deps, ctx, named)).id);
    else {
      requireScope(ctx);
      series = traffic.forUser(principal.user.id, await sourceIdsOf(deps, principal.user.id));
    }
    // The first entries of a new source wait for its owner's look-up: counted before answering.
    await traffic.settled();
    const text = await Registry.merge([health.registry, series]).metrics();
    res.status(200).type(PROMETHEUS_TEXT).send(text);
  });
}
