import type { Contract, ErrorBody } from '@tapline/shared';
import type { Router } from 'express';
import type { Deps } from '../deps.js';
import { harRoute } from '../har/routes.js';
import { HttpError, invalidField, notFound } from '../http/errors.js';
import type { MountedRoute } from '../http/mount.js';
import { mountTable, prepared } from '../http/table.js';
import { ingestLogRoute } from '../ingest-log/routes.js';
import type { Composer } from '../ingest/compose.js';
import type { Ingest } from '../ingest/ingest.js';
import type { BatchPreparer } from '../ingest/prepare-pool.js';
import type { PreparedRecord } from '../ingest/prepare.js';
import { getTrafficRecord, listDomains, listPathnames, listTraffic } from './repo.js';
import { streamTrafficRoute } from '../stream/stream.js';

const errorOf = (body: ErrorBody) => new HttpError(body.statusCode, body.code, body.error, body.issues);

const pathAndBodyAgree = ({
  params,
  body,
}: {
  params: { trafficSourceId: string };
  body: { trafficSourceId: string };
}) => {
  if (body.trafficSourceId !== params.trafficSourceId) {
    throw invalidField(
      'trafficSourceId',
      'trafficSourceId in the body must equal the one in the path',
      'must equal the trafficSourceId in the path',
    );
  }
};

/**
 * The HTTP side of recorded traffic, the `http-traffic` endpoints: every route checks, prepares
 * or reads, and answers; nothing more. Gives back the ingest routes (compose, batch,
 * `/ingest-log`), which the lean path (http/lean.ts) serves as well, and the count of open
 * streams (`/metrics`).
 */
export function httpTrafficRoutes(
  router: Router,
  deps: Deps,
  ingest: Ingest,
  preparer: BatchPreparer,
  compose: Composer,
): { ingest: MountedRoute[]; openStreams: () => number } {
  const { db } = deps;
  const streams = streamTrafficRoute(deps);

  const mounted = mountTable(router, deps, 'http-traffic', {
    // Before getTraffic, whose `:id` would otherwise take `export.har`.
    exportHar: harRoute(deps),

    /**
     * `POST /http-traffic-record/:trafficSourceId/batch`: the path the proxy and `@tapline/node` use.
     * One authentication, one source check and one transaction for up to 1,000 records; large bodies
     * are prepared in a worker thread (ingest/prepare-pool.ts). All or nothing: one invalid item rejects the
     * batch with a 400 whose issues name it by index (`3.method`), before anything is written.
     */
    composeBatch: prepared<Contract['composeBatch'], readonly PreparedRecord[]>(
      async (body, path) => {
        const sourceId = path.trafficSourceId;
        const result = await preparer.prepare({
          body,
          trafficSourceId: typeof sourceId === 'string' ? sourceId : '',
          receivedAt: deps.clock.now().getTime(),
        });
        if (!result.ok && result.fault)
          throw new Error(`preparing a batch failed in the worker thread: ${result.fault}`);
        if (!result.ok && result.stage === 'body') throw errorOf(result.error);
        return () => {
          if (!result.ok) throw errorOf(result.error);
          return result.records;
        };
      },
      async ({ body: records }, { loaded: source }) => {
        const entries = await ingest.store(source, records);
        return { ids: entries.map((entry) => entry.id) };
      },
    ),

    composeRecord: {
      kind: 'json',
      validate: (input) => {
        pathAndBodyAgree(input);
        compose.check(input.body);
      },
      handler: ({ body }, { loaded: source }) => compose.store(source, body),
    },

    ingestLog: ingestLogRoute(compose),

    listTraffic: async ({ query }, { loaded: source }) => {
      const { page, limit, ...filters } = query;
      return listTraffic(deps, source.id, filters, { page, limit });
    },

    // Before getTraffic, whose `:id` would otherwise take the word `stream`.
    streamTraffic: streams.route,

    getTraffic: async ({ params }, { loaded: source }) => {
      const record = await getTrafficRecord(deps, source.id, params.id);
      if (!record) throw notFound('entry_not_found');
      return record;
    },

    listDomains: async ({ query }, { loaded: source }) => listDomains(db, source.id, query),

    listPathnames: async ({ query }, { loaded: source }) => listPathnames(db, source.id, query.domainId, query),
  });

  const ingestRoutes = ['composeRecord', 'composeBatch', 'ingestLog'].flatMap((name) => mounted.get(name) ?? []);
  return { ingest: ingestRoutes, openStreams: streams.open };
}
