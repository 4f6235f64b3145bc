import { createServer, type Server, type ServerOptions, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorBody } from '@tapline/shared';
import type { RequestListener } from 'node:http';
import type { Logger } from 'pino';
import { isLingering, linger } from './linger.js';

/**
 * The request line and headers together. The documented maxima must fit: `q` is up to 4,000
 * UTF-16 units, which percent-encode to at most 36,000 bytes (3 UTF-8 bytes, 9 characters, per
 * unit), beside a token, ids, dates and ordinary headers. Node's default is 16 KiB.
 */
export const MAX_HEADER_BYTES = 64 * 1024;

/** What Node's HTTP parser rejects before Express sees a request, as the API's usual JSON. */
function clientErrorBody(error: NodeJS.ErrnoException): ErrorBody {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return {
      statusCode: 431,
      error: `Request line and headers exceed ${MAX_HEADER_BYTES / 1024} KiB`,
      code: 'headers_too_large',
    };
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return { statusCode: 408, error: 'Request Timeout', code: 'request_timeout' };
  return { statusCode: 400, error: 'Bad Request: the HTTP request could not be parsed', code: 'bad_request' };
}

/**
 * Answers a request Node could not parse with `{statusCode, error, code}` instead of its bodyless
 * default, unless an answer on this socket has begun (then only closing it is safe). What the
 * client goes on sending is read and thrown away for a while (linger.ts), so that the answer is
 * not lost to a reset; each piece of it fails to parse again and comes back here.
 */
function answerClientError(logger: Logger) {
  return (error: NodeJS.ErrnoException, socket: Socket) => {
    const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    if (isLingering(socket))
      return void (timedOut || error.code === 'ECONNRESET' ? socket.destroy() : linger(socket)());
    // node:http's own (undocumented) link from a socket to the response being written on it.
    const pending = '_httpMessage' in socket ? socket._httpMessage : null;
    const answering =
      typeof pending === 'object' && pending !== null && 'headersSent' in pending && pending.headersSent === true;
    if (error.code === 'ECONNRESET' || !socket.writable || answering) {
      socket.destroy();
      return;
    }
    const body = clientErrorBody(error);
    logger.debug(
      { code: error.code, status: body.statusCode, remoteAddress: socket.remoteAddress },
      'refused a request Node could not parse',
    );
    const json = JSON.stringify(body);
    const answer =
      `HTTP/1.1 ${body.statusCode} ${STATUS_CODES[body.statusCode] ?? ''}\r\nConnection: close\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`;
    socket.end(answer);
    // A client past its deadline has had its time; any other may still be sending. Its bytes can
    // no longer be framed, so the write side closes now (as nginx does), which a client that ends
    // its request at once sees without waiting; what it still sends is read until it closes.
    if (!timedOut) linger(socket);
  };
}

/**
 * The one way the daemon and the in-process harness listen, so tests see the daemon's limits.
 * `options` adds to them (the daemon's timeouts).
 */
export function listen(
  app: RequestListener,
  port: number,
  host: string,
  logger: Logger,
  options: ServerOptions = {},
): Promise<Server> {
  const server = createServer({ ...options, maxHeaderSize: MAX_HEADER_BYTES }, app);
  server.on('clientError', answerClientError(logger));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
