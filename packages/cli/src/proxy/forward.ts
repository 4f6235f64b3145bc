import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { createBodyCollector, type BodyCollector } from '@tapline/shared';
import type { Exchange } from './exchange.js';
import { requestHeadersFor } from './forward-headers.js';
import { endToEnd } from './headers.js';
import type { Target } from './target.js';

export interface ForwardOptions {
  readonly target: Target;
  /**
   * Set when the exchange is recorded: called once, after the client has its whole answer (or has
   * gone), with bodies kept up to `maxBody` bytes (what a record can show).
   */
  readonly record?: { readonly maxBody: number; readonly onExchange: (exchange: Exchange) => void };
  /** The client went away before any answer came: there is no exchange to record. */
  readonly onAbandoned?: () => void;
}

/**
 * Forwards one request to the target and streams the answer back as it arrives: status line and
 * reason, headers in their own case and order, body bytes untouched, trailers. Backpressure runs
 * end to end through pipe(), so a large body never sits in memory; the taps keep only a bounded copy.
 */
export function forward(req: IncomingMessage, res: ServerResponse, options: ForwardOptions): void {
  const { target } = options;
  const started = performance.now();
  const startedAt = Date.now();
  const requestBody = options.record ? createBodyCollector(options.record.maxBody) : null;
  const responseBody = options.record ? createBodyCollector(options.record.maxBody) : null;
  let answer: { status: number; headers: readonly string[]; targetError?: string } | null = null;
  let finishedAt = 0;

  const send = (retry: boolean): ClientRequest => {
    const upstream = target.request({
      hostname: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: requestHeadersFor(req, target),
      agent: target.agent,
      servername: target.hostname,
    });
    upstream.on('response', (incoming) => {
      const headers = endToEnd(incoming.rawHeaders);
      answer = { status: incoming.statusCode ?? 502, headers };
      // The app's own Date header (or its absence) passes through; node:http would add a second one.
      res.sendDate = false;
      res.writeHead(incoming.statusCode ?? 502, incoming.statusMessage, headers);
      if (responseBody) incoming.on('data', (chunk: Buffer) => responseBody.push(chunk));
      incoming.pipe(res, { end: false });
      incoming.on('end', () => {
        if (incoming.rawTrailers.length > 0) res.addTrailers(pairs(incoming.rawTrailers));
        res.end();
      });
      incoming.on('error', () => res.destroy());
    });

    upstream.on('error', (error: NodeJS.ErrnoException) => {
      // The app closed an idle pooled connection just as it was reused: nothing reached the app,
      // so a request without a body is simply sent again on a fresh connection.
      if (retry && upstream.reusedSocket && error.code === 'ECONNRESET' && !answer && !hasBody(req)) {
        current = send(false);
        current.end();
        return;
      }
      if (res.headersSent) {
        if (answer) answer.targetError = error.code ?? error.message;
        res.destroy();
        return;
      }
      const reason = error.code ?? error.message;
      const body = Buffer.from(
        JSON.stringify({
          statusCode: 502,
          error: `Bad Gateway: tapline proxy could not reach ${target.origin} (${reason})`,
        }),
      );
      const headers = ['Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(body.length)];
      answer = { status: 502, headers, targetError: reason };
      responseBody?.push(body);
      res.writeHead(502, headers);
      res.end(body);
    });
    return upstream;
  };
  let current = send(true);
  if (requestBody) req.on('data', (chunk: Buffer) => requestBody.push(chunk));
  req.pipe(current);
  req.on('error', () => current.destroy());

  res.once('finish', () => {
    finishedAt = performance.now();
  });
  res.once('close', () => {
    // The client went away before its answer was complete: stop the app's work on its behalf too.
    if (!res.writableFinished) current.destroy();
    if (!answer) return options.onAbandoned?.();
    if (!options.record || !requestBody || !responseBody) return;
    options.record.onExchange(
      exchange(req, answer, requestBody, responseBody, (finishedAt || performance.now()) - started, startedAt),
    );
  });
}

function exchange(
  req: IncomingMessage,
  answer: { status: number; headers: readonly string[]; targetError?: string },
  requestBody: BodyCollector,
  responseBody: BodyCollector,
  elapsedMs: number,
  startedAt: number,
): Exchange {
  return {
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    requestHeaders: req.rawHeaders,
    requestBody,
    status: answer.status,
    responseHeaders: answer.headers,
    responseBody,
    elapsedMs,
    startedAt,
    ...(answer.targetError ? { targetError: answer.targetError } : {}),
  };
}

const hasBody = (req: IncomingMessage) =>
  req.headers['transfer-encoding'] !== undefined ||
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

const pairs = (raw: readonly string[]): [string, string][] => {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i] ?? '', raw[i + 1] ?? '']);
  return out;
};
