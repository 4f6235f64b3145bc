import { contractRoutes } from '@tapline/shared/lean';
import type { ErrorRequestHandler, Router } from 'express';
import type { Deps } from '../deps.js';
import type { Ingest } from '../ingest/ingest.js';
import { createRedactor } from '../ingest/redact.js';
import { failureAnswer, type FailureLogs, HttpError, RetryLater } from '../http/errors.js';
import { mountTable } from '../http/table.js';
import { decodeRequest, encodeResponse, encodeStatus, encodingOf, type OtlpEncoding } from './codec.js';
import { groupBySource } from './sources.js';
import { storeGroup } from './store.js';
import { translate } from './translate.js';

const CONTENT_TYPE: Record<OtlpEncoding, string> = { protobuf: 'application/x-protobuf', json: 'application/json' };

/** gRPC codes of google.rpc.Status for the HTTP statuses OTLP/HTTP answers with. */
const GRPC_CODE: Record<number, number> = {
  400: 3,
  401: 16,
  403: 7,
  404: 5,
  408: 4,
  413: 8,
  415: 3,
  429: 8,
  500: 13,
  503: 14,
};

/**
 * `POST /v1/traces` (OTLP/HTTP, docs/opentelemetry.md): any OpenTelemetry SDK's trace exporter
 * reports here. Answers follow the OTLP specification: 200 with an ExportTraceServiceResponse
 * (`partialSuccess` naming rejected spans), errors as google.rpc.Status for protobuf
 * and Tapline's error body for JSON; 503 (stopping, too many large bodies) carries Retry-After.
 */
export function otlpRoutes(router: Router, deps: Deps, ingest: Ingest): void {
  const redactor = createRedactor(deps.config.redact);
  const types = {
    accepts: (type: string) => encodingOf(type) !== null,
    message: 'Content-Type must be application/x-protobuf or application/json',
  };
  // `access: token`: the scope is checked before the handler; each source the export names, here.
  mountTable(router, deps, 'otlp', {
    otlpTraces: {
      kind: 'bytes',
      types,
      handler: async (body, ctx, req, res) => {
        const encoding = encodingOf(req.headers['content-type']) ?? 'json';
        const decoded = await decodeRequest(body, encoding);
        if ('error' in decoded) throw new HttpError(400, 'bad_request', decoded.error);
        const translation = translate(decoded);
        const { groups, rejected } = await groupBySource(deps, ctx, req.get('x-tapline-source'), translation);
        let count = translation.rejected.count + rejected.count;
        const reasons = [...translation.rejected.reasons, ...rejected.reasons];
        for (const group of groups) {
          const stored = await storeGroup(deps, ingest, redactor, group);
          count += stored.rejected.count;
          reasons.push(...stored.rejected.reasons);
        }
        const partial = count > 0 ? { rejectedSpans: count, errorMessage: reasons.slice(0, 3).join('; ') } : null;
        res.status(200).type(CONTENT_TYPE[encoding]).send(encodeResponse(encoding, partial));
      },
    },
  });
  router.use(contractRoutes.otlpTraces.path, otlpErrors(deps));
}

/** Every failure of the route, authentication's included, as OTLP's google.rpc.Status. */
function otlpErrors(logs: FailureLogs): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const answer = failureAnswer(error, req, logs);
    if (res.headersSent) return void res.destroy();
    const encoding = encodingOf(req.headers['content-type']) ?? 'json';
    // OTLP exporters retry a 503 after Retry-After; the daemon's own "stopping" gives none.
    if (answer instanceof RetryLater) res.set(answer.headers);
    else if (answer.status === 503) res.set('retry-after', '1');
    // JSON clients get Tapline's error body, as on every endpoint (docs/decisions.md §2.1); protobuf
    // clients cannot read JSON, so they get OTLP's google.rpc.Status.
    if (encoding === 'json') return void res.status(answer.status).json(answer.body);
    res
      .status(answer.status)
      .type(CONTENT_TYPE.protobuf)
      .send(encodeStatus(GRPC_CODE[answer.status] ?? 2, answer.message));
  };
}
