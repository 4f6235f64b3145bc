import { contract } from '@tapline/shared';
import type { Router } from 'express';
import type { Deps } from '../deps.js';
import { forbidden, HttpError } from '../http/errors.js';
import { mount, requireScope } from '../http/mount.js';
import { loadAuthorizedSource } from './load.js';
import {
  createTrafficSource,
  deleteTrafficSource,
  findTrafficSourceByName,
  listTrafficSources,
  updateTrafficSource,
} from './repo.js';

const nameTaken = (name: string) =>
  new HttpError(409, 'source_name_taken', `A traffic source named "${name}" already exists`);

export function trafficSourceRoutes(router: Router, deps: Deps): void {
  const { db, clock } = deps;

  mount(router, deps, contract.listTrafficSources, async ({ query }, ctx) => {
    requireScope(ctx);
    return listTrafficSources(db, ctx.principal.user.id, ctx.principal.sourceId, query);
  });

  mount(router, deps, contract.createTrafficSource, async ({ body }, ctx) => {
    requireScope(ctx);
    // A token restricted to one source may not make others.
    if (ctx.principal.sourceId !== null) throw forbidden('source_denied', ctx.principal.tokenId);
    if (await findTrafficSourceByName(db, ctx.principal.user.id, body.name)) throw nameTaken(body.name);
    return createTrafficSource(db, clock, ctx.principal.user.id, body);
  });

  mount(router, deps, contract.updateTrafficSource, async ({ params, body }, ctx) => {
    const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
    if (
      body.name !== undefined &&
      body.name !== source.name &&
      (await findTrafficSourceByName(db, source.userId, body.name))
    ) {
      throw nameTaken(body.name);
    }
    return updateTrafficSource(db, clock, source.id, body);
  });

  mount(router, deps, contract.deleteTrafficSource, async ({ params }, ctx) => {
    const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
    await deleteTrafficSource(db, source.id);
    return undefined;
  });
}
