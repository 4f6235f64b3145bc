import { contract } from '@tapline/shared';
import type { Router } from 'express';
import type { Deps } from '../deps.js';
import { mount } from '../http/mount.js';
import { loadAuthorizedSource } from '../traffic-sources/load.js';
import { checkContract } from './check.js';
import { inferContract } from './infer.js';

/** `GET /api-contract/:id/openapi` and `POST /api-contract/:id/check` (docs/api-contract.md): reads only. */
export function apiContractRoutes(router: Router, deps: Deps): void {
  mount(router, deps, contract.inferApiContract, async ({ params, query }, ctx) => {
    const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
    return inferContract(deps, source, query, deps.clock.now().getTime());
  });
  mount(router, deps, contract.checkApiContract, async ({ params, body }, ctx) => {
    const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
    return checkContract(deps, source.id, body, deps.clock.now().getTime());
  });
}
