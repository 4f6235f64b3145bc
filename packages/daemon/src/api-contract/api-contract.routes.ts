import type { Router } from 'express';
import type { Deps } from '../deps.js';
import { mountTable } from '../http/table.js';
import { CheckerCache, checkContract } from './check.js';
import { inferContract } from './infer.js';

/** `GET /api-contract/:id/openapi` and `POST /api-contract/:id/check` (docs/api-contract.md): reads only. */
export function apiContractRoutes(router: Router, deps: Deps): void {
  const checkers = new CheckerCache();
  mountTable(router, deps, 'api-contract', {
    inferApiContract: async ({ query }, { loaded: source }) =>
      inferContract(deps, source, query, deps.clock.now().getTime()),
    checkApiContract: async ({ body }, { loaded: source }) =>
      checkContract(deps, source.id, body, deps.clock.now().getTime(), checkers),
  });
}
