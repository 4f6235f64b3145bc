import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface WholeAnswer {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** The answer, or the code of the error that ended the exchange first (EPIPE, ECONNRESET). */
export type Outcome = { readonly answer: WholeAnswer } | { readonly error: string };

export interface WholeRequest {
  readonly method?: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /** Bytes per write; each write is awaited before the next, as a blocking `send` would be. */
  readonly piece?: number;
}

const codeOf = (error: unknown) =>
  error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : String(error);

function writeAll(socket: Socket, head: string, body: Buffer, piece: number): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    const next = (offset: number): void => {
      if (offset >= body.length) return resolve();
      socket.write(body.subarray(offset, offset + piece), (error) => (error ? reject(error) : next(offset + piece)));
    };
    socket.write(head, (error) => (error ? reject(error) : next(0)));
  });
}

/** The first complete answer in `bytes` (by its Content-Length), or undefined while it is incomplete. */
function parseAnswer(bytes: Buffer): WholeAnswer | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  if (bytes.length < end + 4 + length) return undefined;
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    body: bytes.subarray(end + 4, end + 4 + length).toString('utf8'),
  };
}

/**
 * Sends a whole request and only then reads its answer, as blocking clients do (Python's
 * http.client, most HTTP libraries outside JavaScript): a write that fails ends the exchange, so a
 * server that closes the connection while the body is still coming (an answer written early, then
 * a close that the unread bytes turn into a reset) leaves such a client with EPIPE or ECONNRESET
 * and no answer. Like those clients, and unlike Node's default socket, it goes on sending after
 * the server's FIN.
 */
export async function sendWhole(url: string, request: WholeRequest): Promise<Outcome> {
  const { hostname, port } = new URL(url);
  const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true });
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const head =
    `${request.method ?? 'POST'} ${request.path} HTTP/1.1\r\nHost: tapline\r\n` +
    Object.entries({ ...request.headers, 'content-length': String(request.body.length) })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('') +
    '\r\n';
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    await writeAll(socket, head, request.body, request.piece ?? 256 * 1024);
  } catch (error) {
    socket.destroy();
    return { error: codeOf(error) };
  }
  socket.on('error', () => undefined);
  const answer = await new Promise<WholeAnswer | undefined>((resolve) => {
    const check = () => {
      const parsed = parseAnswer(Buffer.concat(received));
      if (parsed) resolve(parsed);
    };
    socket.on('data', check);
    void closed.then(() => resolve(parseAnswer(Buffer.concat(received))));
    check();
  });
  socket.destroy();
  return answer ? { answer } : { error: 'closed without an answer' };
}

export interface NodeHttpOutcome {
  readonly status: number | undefined;
  readonly body: string;
  /** Every error the request emitted, answer or not (EPIPE after the answer counts too). */
  readonly errors: readonly string[];
}

/**
 * node:http's own client without an agent (`Connection: close`, as one-shot clients send), the body
 * written in awaited pieces; it reads the answer while it sends, and its socket ends its side when
 * the server's FIN arrives. Resolves once the connection is over.
 */
export function sendWithNodeHttp(url: string, request: WholeRequest): Promise<NodeHttpOutcome> {
  return new Promise((resolve) => {
    const errors: string[] = [];
    let status: number | undefined;
    let body = '';
    const piece = request.piece ?? 256 * 1024;
    const req = httpRequest(new URL(request.path, url), {
      method: request.method ?? 'POST',
      agent: false,
      headers: { ...request.headers, 'content-length': String(request.body.length) },
    });
    req.on('response', (res) => {
      status = res.statusCode;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('error', (error) => errors.push(codeOf(error)));
    });
    req.on('error', (error) => errors.push(codeOf(error)));
    req.on('close', () => resolve({ status, body, errors }));
    const next = (offset: number): void => {
      if (offset >= request.body.length) return void req.end();
      req.write(request.body.subarray(offset, offset + piece), (error) => error || next(offset + piece));
    };
    next(0);
  });
}
