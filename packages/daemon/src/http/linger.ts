import type { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

/**
 * How long a refused client may go on sending after its answer: nginx's `lingering_time` (30 s)
 * and `lingering_timeout` (5 s), and a byte bound of four times the largest body the daemon takes.
 */
export interface LingerLimits {
  /** From the answer on. */
  readonly ms: number;
  /** Without a byte from the client. */
  readonly idleMs: number;
  /** Bytes read and thrown away. */
  readonly bytes: number;
}

export const LINGER: LingerLimits = { ms: 30_000, idleMs: 5_000, bytes: 64 * 1024 * 1024 };

const lingering = new WeakMap<Socket, () => void>();

/** Flushes what was written, then closes: net.Socket's own `destroySoon`, whatever shadows it here. */
const closeSoon = (socket: Socket) => Socket.prototype.destroySoon.call(socket);

/**
 * Keeps reading `socket` once its answer is written, while the client goes on sending what the
 * daemon throws away, and closes it when the client has stopped sending for `idleMs`, has sent
 * `bytes` more, or `ms` have passed (or when the client closes it). Returns what to call each time
 * bytes arrive (they are counted on the socket, wherever they go).
 */
export function linger(socket: Socket, limits: LingerLimits = LINGER): () => void {
  const known = lingering.get(socket);
  if (known) return known;
  const start = socket.bytesRead;
  const close = () => closeSoon(socket);
  const deadline = setTimeout(close, limits.ms).unref();
  const quiet = setTimeout(close, limits.idleMs).unref();
  const heard = () => {
    if (socket.bytesRead - start > limits.bytes) close();
    else quiet.refresh();
  };
  lingering.set(socket, heard);
  // A client that stops sending and ends its side has read its answer, or never will.
  socket.once('end', close);
  socket.once('close', () => {
    clearTimeout(deadline);
    clearTimeout(quiet);
  });
  return heard;
}

/** True once `socket` lingers (see `linger`). */
export const isLingering = (socket: Socket) => lingering.has(socket);

/** Whether a request comes with a body at all: chunked, or of a length above 0. */
export const carriesBody = (headers: IncomingMessage['headers']) =>
  headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;

/**
 * Call before writing an answer to a request whose body nobody read (a refusal: the large-batch
 * gate's 503, 413, 415, a refused token). When the client said `Connection: close` (one-shot
 * clients do), node:http closes the connection as soon as the answer is out, and the body the
 * client is still sending reaches a closed socket: the kernel resets the connection, and a client
 * that reads its answer only once it has sent its request (most clients outside JavaScript do)
 * gets EPIPE or ECONNRESET instead of the answer. (On a keep-alive connection node:http reads the
 * body to its end instead, however long it is.) So, as nginx's `lingering_close`: the answer says
 * `Connection: close`, the daemon reads the rest of the body and throws it away, and once the
 * body is in (or `linger`'s bounds run out) it closes. Its write side stays open until then,
 * unlike nginx's: a Node.js client ends its own side when the daemon's FIN arrives, and its next
 * write of the body then fails with EPIPE. A body already read leaves the answer as it is.
 */
export function answerBeforeBody(req: IncomingMessage, res: ServerResponse, limits: LingerLimits = LINGER): void {
  if (req.readableEnded || !carriesBody(req.headers) || res.headersSent) return;
  const { socket } = req;
  res.setHeader('Connection', 'close');
  // Reading now keeps node:http from dumping the body itself (it does so only while nobody reads).
  req.on('data', () => lingering.get(socket)?.());
  const close = () => closeSoon(socket);
  // node:http ends an answer that says `close` with `socket.destroySoon()`; here, it lingers first.
  socket.destroySoon = () => {
    linger(socket, limits);
    if (req.complete) close();
    else req.once('end', close);
  };
}
