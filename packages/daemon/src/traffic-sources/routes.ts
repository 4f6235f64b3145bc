import type { Router } from 'express';
import type { Deps } from '../deps.js';
import { HttpError } from '../http/errors.js';
import { mountTable } from '../http/table.js';
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

  mountTable(router, deps, 'traffic-source', {
    listTrafficSources: async ({ query }, { principal }) =>
      listTrafficSources(db, principal.user.id, principal.sourceId, query),

    // `access: account`: a token restricted to one source may not make others.
    createTrafficSource: async ({ body }, { principal }) => {
      if (await findTrafficSourceByName(db, principal.user.id, body.name)) throw nameTaken(body.name);
      return createTrafficSource(db, clock, principal.user.id, body);
    },

    updateTrafficSource: async ({ body }, { loaded: source }) => {
      if (
        body.name !== undefined &&
        body.name !== source.name &&
        (await findTrafficSourceByName(db, source.userId, body.name))
      ) {
        throw nameTaken(body.name);
      }
      return updateTrafficSource(db, clock, source.id, body);
    },

    deleteTrafficSource: async (_input, { loaded: source }) => {
      await deleteTrafficSource(db, source.id);
      return undefined;
    },
  });
}
