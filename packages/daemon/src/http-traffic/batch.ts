import { contract, type ErrorBody } from '@tapline/shared';
import type { Router } from 'express';
import type { Deps } from '../deps.js';
import { HttpError } from '../http/errors.js';
import { mountPrepared } from '../http/mount.js';
import { loadAuthorizedSource } from '../traffic-sources/load.js';
import type { BatchPreparer } from './batch-preparer.js';
import type { IngestQueue } from './ingest-queue.js';

/**
 * `POST /http-traffic-record/:trafficSourceId/batch`: the path the proxy and `@tapline/node` use.
 * One authentication, one source check and one transaction for up to 1,000 records is what makes
 * it several times faster than single composes; large bodies are prepared in a worker thread (see
 * batch-preparer.ts). All or nothing: one invalid item rejects the batch with a 400 whose issues
 * name it by index (`3.method`), before anything is written.
 */
const errorOf = (body: ErrorBody) => new HttpError(body.statusCode, body.code, body.error, body.issues);

export function batchRoute(router: Router, deps: Deps, ingest: IngestQueue, preparer: BatchPreparer): void {
  mountPrepared(
    router,
    deps,
    contract.composeBatch,
    async (body, path) => {
      const result = await preparer.prepare({ body, trafficSourceId: path.trafficSourceId ?? '' });
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
}
