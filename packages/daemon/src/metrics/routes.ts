import { PROMETHEUS_TEXT } from '@tapline/shared/lean';
import type { Contract } from '@tapline/shared';
import { Registry } from './prom.js';
import type { Deps } from '../deps.js';
import type { RawRoute } from '../http/table.js';
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
export function metricsRoute(
  deps: Deps,
  traffic: TrafficMetrics,
  health: HealthMetrics,
): RawRoute<Contract['getMetrics']> {
  return {
    kind: 'raw',
    // `loaded` is the named source (`access`: the query's, else the token's restriction), or null.
    handler: async (_input, { principal, loaded: source }, _req, res) => {
      const series = source
        ? traffic.forSource(source.id)
        : traffic.forUser(principal.user.id, await sourceIdsOf(deps, principal.user.id));
      // The first entries of a new source wait for its owner's look-up: counted before answering.
      await traffic.settled();
      const text = await Registry.merge([health.registry, series]).metrics();
      res.status(200).type(PROMETHEUS_TEXT).send(text);
    },
  };
}
