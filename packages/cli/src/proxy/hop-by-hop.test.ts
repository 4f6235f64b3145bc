import http from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileGlobs } from './exclude.js';
import { createProxyServer, type ProxyServer } from './server.js';
import { parseTarget } from './target.js';

/**
 * RFC 9110 section 7.6.1: a header that `Connection` names describes that one connection, so a
 * proxy drops it in both directions, as it drops the fixed hop-by-hop set. The client here is a
 * bare socket, so the exact header lines (several `Connection` lines, odd case and spacing) reach
 * the proxy as written.
 */

let target: http.Server;
let proxy: ProxyServer;
let proxyPort: number;

beforeAll(async () => {
  target = http.createServer((req, res) => {
    // The names the app received, in a header: the body's framing is the proxy's to choose.
    const seen = req.rawHeaders.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase());
    res.writeHead(200, [
      'X-Seen-By-App',
      seen.join(','),
      'Connection',
      'X-Upstream-Hop',
      'X-Upstream-Hop',
      'app-side',
      'X-Upstream-Kept',
      'yes',
    ]);
    res.end('ok');
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const targetPort = (target.address() as AddressInfo).port;
  proxy = createProxyServer({
    target: parseTarget(`http://127.0.0.1:${targetPort}`),
    maxBody: 1024,
    isExcluded: compileGlobs([]),
    onExchange: () => undefined,
  });
  proxyPort = (await proxy.listen('127.0.0.1', 0)).port;
});
afterAll(async () => {
  await proxy.close(100);
  target.closeAllConnections();
  await new Promise((resolve) => target.close(resolve));
});

/** Sends `head` as written and resolves with the whole answer once the proxy closes the connection. */
function send(head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(proxyPort, '127.0.0.1', () => socket.write(head));
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

describe('hop-by-hop headers through the proxy', () => {
  it('drops request headers named in Connection, across several Connection lines and in any case', async () => {
    const answer = await send(
      'GET /anything HTTP/1.1\r\nHost: shop.test\r\n' +
        'Connection: close, X-Client-Hop\r\nconnection:  x-second-HOP ,\r\n' +
        'X-Client-Hop: secret-1\r\nX-Second-Hop: secret-2\r\nKeep-Alive: timeout=5\r\nTE: trailers\r\nProxy-Authorization: Basic c2VjcmV0\r\n' +
        'X-End-To-End: kept\r\n\r\n',
    );
    const seenByApp = (/^x-seen-by-app: (.*)$/im.exec(answer)?.[1] ?? '').trim().split(',');
    expect(seenByApp).toContain('x-end-to-end');
    for (const hop of ['x-client-hop', 'x-second-hop', 'keep-alive', 'te', 'proxy-authorization'])
      expect(seenByApp).not.toContain(hop);
  });

  it('drops response headers the app names in Connection, and keeps the others', async () => {
    const answer = await send('GET / HTTP/1.1\r\nHost: shop.test\r\nConnection: close\r\n\r\n');
    const head = answer.slice(0, answer.indexOf('\r\n\r\n')).toLowerCase();
    expect(head).toMatch(/^http\/1\.1 200 /);
    expect(head).toContain('x-upstream-kept: yes');
    expect(head).not.toContain('x-upstream-hop');
  });
});
