import type { Router } from 'express';
import type { Deps } from '../deps.js';
import { mountTable } from '../http/table.js';
import type { CheckerCache } from './check.js';

/**
 * `GET /api-contract/:id/openapi` and `POST /api-contract/:id/check` (docs/api-contract.md): reads only.
 * Inference and the check (with ajv, which builds its validators) are loaded by the first request
 * for either, not by the start that mounts them (docs/decisions.md §20.27).
 */
export function apiContractRoutes(router: Router, deps: Deps): void {
  let checkers: CheckerCache | undefined;
  mountTable(router, deps, 'api-contract', {
    inferApiContract: async ({ query }, { loaded: source }) => {
      const now = deps.clock.now().getTime();
      return (await import('./infer.js')).inferContract(deps, source, query, now);
    },
    checkApiContract: async ({ body }, { loaded: source }) => {
      const now = deps.clock.now().getTime();
      const { CheckerCache, checkContract } = await import('./check.js');
      checkers ??= new CheckerCache();
      return checkContract(deps, source.id, body, now, checkers);
    },
  });
}
