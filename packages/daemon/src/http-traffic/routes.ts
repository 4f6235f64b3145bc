import { contract, type ErrorBody } from '@tapline/shared';
import type { Router } from 'express';
import type { Deps } from '../deps.js';
import { HttpError, invalidField, notFound } from '../http/errors.js';
import { type MountedRoute, mount, mountPrepared } from '../http/mount.js';
import { loadAuthorizedSource } from '../traffic-sources/load.js';
import type { Composer } from '../ingest/compose.js';
import type { Ingest } from '../ingest/ingest.js';
import type { BatchPreparer } from '../ingest/prepare-pool.js';
import { getTrafficRecord, listDomains, listPathnames, listTraffic } from './repo.js';
import { streamTrafficRoute } from '../stream/stream.js';

const errorOf = (body: ErrorBody) => new HttpError(body.statusCode, body.code, body.error, body.issues);

/**
 * The HTTP side of recorded traffic: every route checks, prepares or reads, and answers; nothing
 * more. Gives back the two ingest routes, which the lean path (http/lean.ts) serves as well, and
 * the count of open streams (`/metrics`).
 */
export function httpTrafficRoutes(
  router: Router,
  deps: Deps,
  ingest: Ingest,
  preparer: BatchPreparer,
  compose: Composer,
): { ingest: MountedRoute[]; openStreams: () => number } {
  const { db } = deps;

  /**
   * `POST /http-traffic-record/:trafficSourceId/batch`: the path the proxy and `@tapline/node` use.
   * One authentication, one source check and one transaction for up to 1,000 records; large bodies
   * are prepared in a worker thread (ingest/prepare-pool.ts). All or nothing: one invalid item rejects the
   * batch with a 400 whose issues name it by index (`3.method`), before anything is written.
   */
  const batch = mountPrepared(
    router,
    deps,
    contract.composeBatch,
    async (body, path) => {
      const sourceId = path.trafficSourceId;
      const result = await preparer.prepare({
        body,
        trafficSourceId: typeof sourceId === 'string' ? sourceId : '',
        receivedAt: deps.clock.now().getTime(),
      });
      if (!result.ok && result.fault) throw new Error(`preparing a batch failed in the worker thread: ${result.fault}`);
      if (!result.ok && result.stage === 'body') throw errorOf(result.error);
      return () => {
        if (!result.ok) throw errorOf(result.error);
        return result.records;
      };
    },
    async ({ params, body: records }, ctx) => {
      const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
      const entries = await ingest.store(source, records);
      return { ids: entries.map((entry) => entry.id) };
    },
  );

  const single = mount(router, deps, contract.composeRecord, async ({ params, body }, ctx) => {
    if (body.trafficSourceId !== params.trafficSourceId) {
      throw invalidField(
        'trafficSourceId',
        'trafficSourceId in the body must equal the one in the path',
        'must equal the trafficSourceId in the path',
      );
    }
    return compose(ctx, body);
  });

  mount(router, deps, contract.listTraffic, async ({ params, query }, ctx) => {
    const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
    const { page, limit, ...filters } = query;
    return listTraffic(deps, source.id, filters, { page, limit });
  });

  // Before getTraffic, whose `:id` would otherwise take the word `stream`.
  const streams = streamTrafficRoute(router, deps);

  mount(router, deps, contract.getTraffic, async ({ params }, ctx) => {
    const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
    const record = await getTrafficRecord(deps, source.id, params.id);
    if (!record) throw notFound('entry_not_found');
    return record;
  });

  mount(router, deps, contract.listDomains, async ({ params, query }, ctx) => {
    const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
    return listDomains(db, source.id, query);
  });

  mount(router, deps, contract.listPathnames, async ({ params, query }, ctx) => {
    const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
    return listPathnames(db, source.id, query.domainId, query);
  });

  return { ingest: [single, batch], openStreams: streams.open };
}
