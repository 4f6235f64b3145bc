import { contract } from '@tapline/shared';
import type { Router } from 'express';
import type { Deps } from '../deps.js';
import { mount } from '../http/mount.js';
import { loadAuthorizedSource } from '../traffic-sources/load.js';
import { readStats } from './read.js';
import { listRoutes } from './routes-repo.js';

/** `GET /stats/:id` and `GET /routes/:id` (docs/statistics.md): reads only; the numbers are written by ingest. */
export function routeStatsRoutes(router: Router, deps: Deps): void {
  mount(router, deps, contract.getStats, async ({ params, query }, ctx) => {
    const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
    return readStats(deps, source.id, query, deps.clock.now().getTime(), deps.config.stats.retentionMs);
  });
  mount(router, deps, contract.listRoutes, async ({ params, query }, ctx) => {
    const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
    return listRoutes(deps.db, source.id, query);
  });
}
