import { captureBody, toRecordBody, type RecordBody } from '@tapline/shared';
import type { Exchange } from './exchange.js';
import { toHeaderRecord } from './headers.js';
import type { Target } from './target.js';

/**
 * The compose body of an exchange. `domainUrl` and `protocol` name the target (the app), not the
 * Host the client used to reach the proxy: `localhost:8080` and `127.0.0.1:8080` are the same app,
 * and a remote target keeps its own name. Request headers are the client's as sent; response
 * headers are the app's, Content-Encoding included, while the body is decoded for the record.
 */
export async function toRecord(exchange: Exchange, target: Target, maxBody: number): Promise<RecordBody | null> {
  const requestHeaders = toHeaderRecord(exchange.requestHeaders);
  const responseHeaders = toHeaderRecord(exchange.responseHeaders);
  const [requestBody, responseBody] = await Promise.all([
    captureBody({ body: exchange.requestBody.bytes(), totalBytes: exchange.requestBody.size, contentType: one(requestHeaders['content-type']), contentEncoding: one(requestHeaders['content-encoding']), maxBytes: maxBody }),
    captureBody({ body: exchange.responseBody.bytes(), totalBytes: exchange.responseBody.size, contentType: one(responseHeaders['content-type']), contentEncoding: one(responseHeaders['content-encoding']), maxBytes: maxBody }),
  ]);
  return toRecordBody({
    method: exchange.method,
    url: exchange.url,
    host: new URL(target.origin).host,
    protocol: target.protocol,
    status: exchange.status,
    elapsedTime: exchange.elapsedMs,
    startedAt: exchange.startedAt,
    requestHeaders,
    responseHeaders,
    requestBody,
    responseBody,
  });
}

const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : value);
