import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A round-robin HTTP balancer in front of several daemons, as nginx would be (docs/postgres.md). */
export interface Balancer {
  readonly url: string;
  /** Which upstream (its index) answered each request, in order. */
  readonly served: number[];
  close(): Promise<void>;
}

/** Connection errors where the upstream never saw the request, so sending it to the next one is safe. */
const NOT_REACHED = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE']);

/**
 * Requests go to the upstreams in turn; one that cannot be connected to is passed over (nginx's
 * `proxy_next_upstream error`), so a killed daemon only shifts the load. Request bodies are read
 * first (so they can be sent again); responses are piped through as they arrive, unbuffered, so
 * an event stream flows as it does without the balancer.
 */
export async function startBalancer(upstreams: readonly string[]): Promise<Balancer> {
  const served: number[] = [];
  let next = 0;

  function forward(req: IncomingMessage, res: ServerResponse, body: Buffer, tries: number): void {
    const index = next++ % upstreams.length;
    const target = new URL(req.url ?? '/', upstreams[index]);
    const upstream = request(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host } },
      (answer) => {
        served.push(index);
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.flushHeaders();
        answer.pipe(res);
        res.on('close', () => answer.destroy());
      },
    );
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (res.headersSent) return void res.destroy();
      if (NOT_REACHED.has(error.code ?? '') && tries < upstreams.length) return forward(req, res, body, tries + 1);
      res
        .writeHead(502, { 'content-type': 'application/json' })
        .end(JSON.stringify({ statusCode: 502, error: 'Bad Gateway' }));
    });
    upstream.end(body);
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => forward(req, res, Buffer.concat(chunks), 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
