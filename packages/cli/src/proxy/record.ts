import {
  captureBody,
  captureBodyNow,
  toRecordBody,
  type BodyCollector,
  type BodyInput,
  type JsonValue,
  type RecordBody,
} from '@tapline/shared';
import type { Exchange } from './exchange.js';
import { type HeaderRecord, toHeaderRecord } from './headers.js';
import type { Target } from './target.js';

/**
 * The compose body of an exchange. `domainUrl` and `protocol` name the target (the app), not the
 * Host the client used to reach the proxy: `localhost:8080` and `127.0.0.1:8080` are the same app,
 * and a remote target keeps its own name. Request headers are the client's as sent; response
 * headers are the app's, Content-Encoding included, while the body is decoded for the record.
 *
 * Built at once, without a promise, unless a body must be decoded (gzip, br...): this runs for
 * every proxied request, and a promise per exchange was a visible share of the proxy's CPU.
 */
export function toRecord(
  exchange: Exchange,
  target: Target,
  maxBody: number,
): RecordBody | null | Promise<RecordBody | null> {
  const requestHeaders = toHeaderRecord(exchange.requestHeaders);
  const responseHeaders = toHeaderRecord(exchange.responseHeaders);
  const request = bodyInput(exchange.requestBody, requestHeaders, maxBody);
  const response = bodyInput(exchange.responseBody, responseHeaders, maxBody);
  const build = (requestBody: JsonValue, responseBody: JsonValue) =>
    toRecordBody({
      method: exchange.method,
      url: exchange.url,
      host: target.host,
      protocol: target.protocol,
      status: exchange.status,
      elapsedTime: exchange.elapsedMs,
      startedAt: exchange.startedAt,
      requestHeaders,
      responseHeaders,
      requestBody,
      responseBody,
    });
  const requestBody = captureBodyNow(request);
  const responseBody = captureBodyNow(response);
  if (requestBody !== undefined && responseBody !== undefined) return build(requestBody, responseBody);
  return Promise.all([requestBody ?? captureBody(request), responseBody ?? captureBody(response)]).then(([a, b]) =>
    build(a, b),
  );
}

const bodyInput = (body: BodyCollector, headers: HeaderRecord, maxBytes: number): BodyInput => ({
  body: body.bytes(),
  totalBytes: body.size,
  contentType: one(headers['content-type']),
  contentEncoding: one(headers['content-encoding']),
  maxBytes,
});

const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : value);
