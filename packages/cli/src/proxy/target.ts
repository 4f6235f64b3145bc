import http from 'node:http';
import https from 'node:https';

/** Where the proxy forwards to: an http(s) origin, reached over keep-alive connections. */
export interface Target {
  /** `http://localhost:3000`, no path. */
  readonly origin: string;
  /** `localhost:3000`: the origin's host and port, as a Host header names it. */
  readonly host: string;
  readonly protocol: 'HTTP' | 'HTTPS';
  readonly hostname: string;
  readonly port: number;
  /** Reused connections: opening one per request would cost the app's users a handshake each time. */
  readonly agent: http.Agent;
  readonly request: (options: https.RequestOptions) => http.ClientRequest;
}

/** Parses `--target`; throws a plain Error with a message fit for the shell. */
export function parseTarget(text: string): Target {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
  } catch {
    throw new Error(`--target must be an http(s) URL such as http://localhost:3000 (got "${text}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`--target must be http or https (got "${url.protocol.slice(0, -1)}")`);
  if ((url.pathname !== '/' && url.pathname !== '') || url.search)
    throw new Error(
      '--target must be an origin without a path or query (the proxy forwards each request path as it comes)',
    );
  const secure = url.protocol === 'https:';
  // noDelay: a request's head and body often leave in separate writes; Nagle would hold the second
  // back until the app ACKs the first, which a delayed ACK makes 40 ms.
  const options = {
    keepAlive: true,
    noDelay: true,
    maxSockets: Number.POSITIVE_INFINITY,
    maxFreeSockets: 256,
    scheduling: 'lifo' as const,
  };
  return {
    origin: url.origin,
    host: url.host,
    protocol: secure ? 'HTTPS' : 'HTTP',
    // URL keeps brackets around IPv6 literals; node:http wants the bare address.
    hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : secure ? 443 : 80,
    agent: secure ? new https.Agent(options) : new http.Agent(options),
    request: secure ? (o) => https.request(o) : (o) => http.request(o),
  };
}
