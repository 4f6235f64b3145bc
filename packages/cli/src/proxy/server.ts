import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { HTTP_METHODS } from '@tapline/shared';
import type { Exchange } from './exchange.js';
import { forward } from './forward.js';
import type { Target } from './target.js';
import { passUpgrade } from './upgrade.js';

// Why node:http and not a proxy library: the proxy must pass bytes through unchanged (status
// reason, header case, order and repeats, trailers), splice upgraded sockets without parsing
// frames, tap both bodies for the record without buffering them, and record its own 502s.
// http-proxy covers the first two but has had no release since 2020, and the taps and 502
// recording would still be wired by hand around its events; written directly on node:http the
// whole path is a few short files whose every byte is under our control.

export interface ProxyServerOptions {
  readonly target: Target;
  /** Bytes of each recorded body a record shows (`--max-body`); only about that much is kept in memory. */
  readonly maxBody: number;
  /** Path (no query) left out of recording by `--exclude`; the request is still forwarded. */
  readonly isExcluded: (pathname: string) => boolean;
  /** A finished exchange to record; called after the client has its answer. */
  readonly onExchange: (exchange: Exchange) => void;
}

export interface ProxyCounters {
  /** Requests and upgrades forwarded, recorded or not. */
  forwarded: number;
  /** Exchanges handed over for recording. */
  recorded: number;
  /** Left out by --exclude. */
  excluded: number;
  /** Methods the spec does not record (HEAD, OPTIONS, ...), by method. */
  unrecorded: Record<string, number>;
  /** Answered 502 by the proxy because the target could not be reached. */
  targetErrors: number;
  /** Clients that went away before the app answered: nothing to record. */
  abandoned: number;
}

export interface ProxyServer {
  readonly counters: ProxyCounters;
  listen(host: string, port: number): Promise<AddressInfo>;
  /** Stops accepting, lets requests in flight finish for up to `graceMs`, then cuts what is left. */
  close(graceMs?: number): Promise<void>;
}

const RECORDED_METHODS: ReadonlySet<string> = new Set(HTTP_METHODS);

export function createProxyServer(options: ProxyServerOptions): ProxyServer {
  const counters: ProxyCounters = {
    forwarded: 0,
    recorded: 0,
    excluded: 0,
    unrecorded: {},
    targetErrors: 0,
    abandoned: 0,
  };
  const tunnels = new Set<Duplex>();

  /** Whether this request's exchange is recorded; counts the ones that are not. */
  const shouldRecord = (req: http.IncomingMessage): boolean => {
    counters.forwarded += 1;
    const method = req.method ?? 'GET';
    if (!RECORDED_METHODS.has(method)) {
      counters.unrecorded[method] = (counters.unrecorded[method] ?? 0) + 1;
      return false;
    }
    if (options.isExcluded(pathOf(req.url))) {
      counters.excluded += 1;
      return false;
    }
    return true;
  };
  const record = (exchange: Exchange) => {
    if (exchange.targetError && exchange.status === 502) counters.targetErrors += 1;
    counters.recorded += 1;
    options.onExchange(exchange);
  };

  const onAbandoned = () => {
    counters.abandoned += 1;
  };

  const server = http.createServer((req, res) => {
    const recorded = shouldRecord(req);
    forward(req, res, {
      target: options.target,
      onAbandoned,
      ...(recorded ? { record: { maxBody: options.maxBody, onExchange: record } } : {}),
    });
  });
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    tunnels.add(socket);
    socket.once('close', () => tunnels.delete(socket));
    passUpgrade(req, socket, head, options.target, shouldRecord(req) ? record : undefined);
  });
  // A client that sends garbage gets a 400 and its connection closed, as node:http does by default.
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
  });

  return {
    counters,
    listen: (host, port) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const address = server.address();
          // A server listening on a port has an address object; only a pipe's is a string.
          if (address !== null && typeof address === 'object') resolve(address);
          else reject(new Error(`the proxy listens on ${String(address)}, not on a port`));
        });
      }),
    close: (graceMs = 2000) =>
      new Promise((resolve) => {
        const timer = setTimeout(() => {
          server.closeAllConnections();
          for (const socket of tunnels) socket.destroy();
        }, graceMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          options.target.agent.destroy();
          resolve();
        });
        server.closeIdleConnections();
        for (const socket of tunnels) socket.destroy();
      }),
  };
}

/** The path of a request target without its query; an absolute-form target (`http://h/p?q`) gives `/p`. */
export function pathOf(url: string | undefined): string {
  const text = url ?? '/';
  if (text.startsWith('/')) {
    const q = text.indexOf('?');
    return q === -1 ? text : text.slice(0, q);
  }
  try {
    return new URL(text).pathname;
  } catch {
    return text;
  }
}
