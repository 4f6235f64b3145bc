import { contract } from '@tapline/shared';
import type { Router } from 'express';
import type { Deps } from '../deps.js';
import { invalidField } from '../http/errors.js';
import { trafficEntryExists } from '../http-traffic/repo.js';
import { mount } from '../http/mount.js';
import { loadAuthorizedSource } from '../traffic-sources/load.js';
import { createCoreLog, listCoreLogs } from './repo.js';

export function coreLogRoutes(router: Router, deps: Deps): void {
  const { db, clock } = deps;

  mount(router, deps, contract.listCoreLogs, async ({ params, query }, ctx) => {
    const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
    return { statusCode: 200 as const, ...(await listCoreLogs(db, source.id, query)) };
  });

  mount(router, deps, contract.createCoreLog, async ({ params, body }, ctx) => {
    const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
    if (body.httpTrafficId && !(await trafficEntryExists(db, source.id, body.httpTrafficId))) {
      throw invalidField(
        'httpTrafficId',
        'httpTrafficId must name a traffic entry of this traffic source',
        'no traffic entry of this source has that id',
      );
    }
    return { statusCode: 201 as const, data: await createCoreLog(db, clock, source.id, body) };
  });
}
