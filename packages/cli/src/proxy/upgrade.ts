import type { IncomingMessage } from 'node:http';
import { createBodyCollector } from '@tapline/shared';
import http from 'node:http';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { performance } from 'node:perf_hooks';
import type { Exchange } from './exchange.js';
import { requestHeadersFor } from './forward-headers.js';
import { endToEnd, headerLines } from './headers.js';
import type { Target } from './target.js';

/**
 * Passes an upgrade (WebSocket, or any other protocol switch) through: the handshake goes to the
 * target, and once it answers 101 the two sockets are spliced together byte for byte. Frames are
 * never parsed. `onHandshake` gets the handshake as an exchange; the tunnel itself is not recorded.
 */
export function passUpgrade(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  target: Target,
  onHandshake?: (exchange: Exchange) => void,
): void {
  const started = performance.now();
  const startedAt = Date.now();
  const headers = requestHeadersFor(req, target);
  headers.push('Connection', 'Upgrade', 'Upgrade', String(req.headers.upgrade ?? ''));
  // A dedicated connection: a tunnelled socket never goes back to a keep-alive pool.
  const upstream = target.request({
    hostname: target.hostname,
    port: target.port,
    method: req.method,
    path: req.url,
    headers,
    agent: false,
    servername: target.hostname,
  });
  socket.on('error', () => upstream.destroy());

  upstream.on('upgrade', (incoming, tunnel, upstreamHead) => {
    const responseHeaders = incoming.rawHeaders;
    socket.write(
      `HTTP/1.1 ${incoming.statusCode ?? 101} ${incoming.statusMessage ?? 'Switching Protocols'}\r\n${headerLines(responseHeaders)}\r\n`,
    );
    if (upstreamHead.length > 0) socket.write(upstreamHead);
    if (head.length > 0) tunnel.write(head);
    splice(socket, tunnel);
    onHandshake?.(handshake(req, incoming.statusCode ?? 101, responseHeaders, performance.now() - started, startedAt));
  });

  // The target declined to switch protocols and answered as usual: relay that answer, then close,
  // since a body of unknown framing ends the connection.
  upstream.on('response', (incoming) => {
    const responseHeaders = endToEnd(incoming.rawHeaders, new Set(['content-length']));
    socket.write(
      `HTTP/1.1 ${incoming.statusCode ?? 502} ${incoming.statusMessage ?? ''}\r\n${headerLines(responseHeaders)}Connection: close\r\n\r\n`,
    );
    incoming.pipe(socket);
    onHandshake?.(
      handshake(req, incoming.statusCode ?? 502, incoming.rawHeaders, performance.now() - started, startedAt),
    );
  });

  upstream.on('error', (error: NodeJS.ErrnoException) => {
    const reason = error.code ?? error.message;
    const body = JSON.stringify({
      statusCode: 502,
      error: `Bad Gateway: tapline proxy could not reach ${target.origin} (${reason})`,
    });
    const responseHeaders = [
      'Content-Type',
      'application/json; charset=utf-8',
      'Content-Length',
      String(Buffer.byteLength(body)),
    ];
    if (socket.writable)
      socket.end(
        `HTTP/1.1 502 ${http.STATUS_CODES[502]}\r\n${headerLines(responseHeaders)}Connection: close\r\n\r\n${body}`,
      );
    onHandshake?.({
      ...handshake(req, 502, responseHeaders, performance.now() - started, startedAt),
      targetError: reason,
    });
  });

  upstream.end();
}

function splice(a: Duplex, b: Duplex): void {
  const close = () => {
    a.destroy();
    b.destroy();
  };
  for (const s of [a, b]) {
    s.on('error', close);
    s.on('close', close);
    if (s instanceof Socket) s.setNoDelay(true);
  }
  a.pipe(b);
  b.pipe(a);
}

function handshake(
  req: IncomingMessage,
  status: number,
  responseHeaders: readonly string[],
  elapsedMs: number,
  startedAt: number,
): Exchange {
  return {
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    requestHeaders: req.rawHeaders,
    requestBody: createBodyCollector(0),
    status,
    responseHeaders,
    responseBody: createBodyCollector(0),
    elapsedMs,
    startedAt,
    upgraded: status === 101,
  };
}
