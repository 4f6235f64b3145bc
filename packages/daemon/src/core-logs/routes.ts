import type { Router } from 'express';
import type { Deps } from '../deps.js';
import { invalidField } from '../http/errors.js';
import { trafficEntryExists } from '../http-traffic/repo.js';
import { mountTable } from '../http/table.js';
import { createCoreLog, listCoreLogs } from './repo.js';

export function coreLogRoutes(router: Router, deps: Deps): void {
  const { db, clock } = deps;

  mountTable(router, deps, 'core-log', {
    listCoreLogs: async ({ query }, { loaded: source }) => ({
      statusCode: 200 as const,
      ...(await listCoreLogs(db, source.id, query)),
    }),

    createCoreLog: async ({ body }, { loaded: source }) => {
      if (body.httpTrafficId && !(await trafficEntryExists(db, source.id, body.httpTrafficId))) {
        throw invalidField(
          'httpTrafficId',
          'httpTrafficId must name a traffic entry of this traffic source',
          'no traffic entry of this source has that id',
        );
      }
      return { statusCode: 201 as const, data: await createCoreLog(db, clock, source.id, body) };
    },
  });
}
