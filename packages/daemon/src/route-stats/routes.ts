import type { Router } from 'express';
import type { Deps } from '../deps.js';
import { mountTable } from '../http/table.js';
import type { HealthMetrics } from '../metrics/health.js';
import { metricsRoute } from '../metrics/routes.js';
import type { TrafficMetrics } from '../metrics/traffic.js';
import type { Reassignment } from './reassign.js';
import { readStats } from './read.js';
import { listRoutes } from './routes-repo.js';
import { routeRuleRoutes } from './rules.routes.js';

/**
 * The `statistics` endpoints (docs/statistics.md): `GET /stats/:id` and `GET /routes/:id`, reads
 * only (the numbers are written by ingest), the route rules, and `GET /metrics`.
 */
export function statisticsRoutes(
  router: Router,
  deps: Deps,
  reassignment: Reassignment,
  metrics: { traffic: TrafficMetrics; health: HealthMetrics },
): void {
  mountTable(router, deps, 'statistics', {
    getStats: async ({ query }, { loaded: source }) =>
      readStats(deps, source.id, query, deps.clock.now().getTime(), deps.config.stats.retentionMs),
    listRoutes: async ({ query }, { loaded: source }) => listRoutes(deps.db, source.id, query),
    getMetrics: metricsRoute(deps, metrics.traffic, metrics.health),
    ...routeRuleRoutes(deps, reassignment),
  });
}
