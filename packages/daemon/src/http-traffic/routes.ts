import { contract } from '@tapline/shared';
import type { Router } from 'express';
import type { Deps } from '../deps.js';
import { invalidField, notFound } from '../http/errors.js';
import { mount } from '../http/mount.js';
import { loadAuthorizedSource } from '../traffic-sources/load.js';
import { batchRoute } from './batch.js';
import type { BatchPreparer } from './batch-preparer.js';
import { composedRecord } from './compose.js';
import type { IngestQueue } from './ingest-queue.js';
import { prepareRecord } from './prepare.js';
import { createRedactor } from './redact.js';
import { getTrafficRecord, listDomains, listPathnames, listTraffic } from './repo.js';
import { streamTrafficRoute } from './stream.js';

export function httpTrafficRoutes(router: Router, deps: Deps, ingest: IngestQueue, preparer: BatchPreparer): void {
  const { db } = deps;
  const redactor = createRedactor(deps.config.redact);

  batchRoute(router, deps, ingest, preparer);

  mount(router, deps, contract.composeRecord, async ({ params, body }, ctx) => {
    if (body.trafficSourceId !== params.trafficSourceId) {
      throw invalidField('trafficSourceId', 'trafficSourceId in the body must equal the one in the path', 'must equal the trafficSourceId in the path');
    }
    const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
    const { record, shown } = prepareRecord(body, redactor);
    const [entry] = await ingest.store(source, [record]);
    if (!entry) throw new Error('compose stored no record');
    return composedRecord(entry, shown);
  });

  mount(router, deps, contract.listTraffic, async ({ params, query }, ctx) => {
    const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
    const { page, limit, ...filters } = query;
    return listTraffic(db, source.id, filters, { page, limit });
  });

  // Before getTraffic, whose `:id` would otherwise take the word `stream`.
  streamTrafficRoute(router, deps);

  mount(router, deps, contract.getTraffic, async ({ params }, ctx) => {
    const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
    const record = await getTrafficRecord(db, source.id, params.id);
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
}
