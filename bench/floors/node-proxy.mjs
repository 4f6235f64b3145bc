// The proxy floor in Node: a reverse proxy on node:http that forwards and records nothing, with the
// upstream agent `tapline proxy` uses (keep-alive, unlimited sockets, LIFO, no Nagle), bodies
// piped both ways and hop-by-hop headers dropped. What any Node proxy pays on this machine before
// it records anything, beside nginx's C. `node node-proxy.mjs TARGET_URL`; prints
// `node proxy listening on <url>`.
import { Agent, createServer, request } from 'node:http';

const target = new URL(process.argv[2]);
const agent = new Agent({ keepAlive: true, scheduling: 'lifo', noDelay: true });
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
const endToEnd = (headers) => Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));

const server = createServer({ noDelay: true }, (req, res) => {
  const upstream = request(
    {
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: { ...endToEnd(req.headers), host: target.host },
      agent,
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
      answer.pipe(res);
    },
  );
  upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
  req.pipe(upstream);
});
server.listen(0, '127.0.0.1', () => console.log(`node proxy listening on http://127.0.0.1:${server.address().port}`));
process.on('SIGINT', () => server.close(() => process.exit(0)));
