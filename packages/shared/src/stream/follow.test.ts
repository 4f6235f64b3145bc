import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../client.js';
import type { HttpTraffic } from '../schemas/http-traffic.js';
import { followTraffic } from './follow.js';

const SOURCE = '01a1fc8d-93a2-767e-92f3-e5a71388f88b';

/** A UUIDv7 of millisecond `ms` whose random part is `tail`: two daemons' ids of the same moment. */
function idAt(ms: number, tail: string): string {
  const time = ms.toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8)}-7000-8000-${tail.padStart(12, '0')}`;
}

function entry(id: string): HttpTraffic {
  return {
    id,
    status: 200,
    method: 'GET',
    level: 'INFO',
    elapsedTime: 1,
    createdAt: '2026-01-01T00:00:00.000Z',
    trafficSourceId: SOURCE,
    domainId: SOURCE,
    pathnameId: SOURCE,
    requestId: SOURCE,
    responseId: SOURCE,
    domain: 'shop.example.com',
    pathname: `/p/${id}`,
    protocol: 'HTTP',
  };
}

const frame = (id: string) => `id: ${id}\ndata: ${JSON.stringify(entry(id))}\n\n`;
const ready = (cursor: string | null) =>
  `retry: 250\n\nevent: ready\n${cursor ? `id: ${cursor}\n` : ''}data: ${JSON.stringify({ cursor })}\n\n`;

/** A daemon's stream endpoint on loopback that answers each connection with the next script. */
async function fakeStream(
  connections: ((req: IncomingMessage, res: ServerResponse) => void)[],
): Promise<{ url: string; server: Server; lastEventIds: (string | undefined)[] }> {
  const lastEventIds: (string | undefined)[] = [];
  const server = createServer((req, res) => {
    lastEventIds.push(req.headers['last-event-id'] as string | undefined);
    const next = connections.shift();
    if (!next)
      return void res
        .writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' })
        .end('{"statusCode":503,"error":"no more"}');
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    next(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, lastEventIds };
}

describe('followTraffic against a stream whose ids are not in text order (two daemons, docs/decisions.md §9.7)', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    if (server) await new Promise((resolve) => server?.close(resolve));
  });

  it('delivers every event once in stream order, resumes from the last one delivered, and drops a replayed repeat', async () => {
    // Daemon A's ids run a millisecond ahead of daemon B's: commit order interleaves them.
    const a1 = idAt(1_000_001, 'a1');
    const b1 = idAt(1_000_000, 'b1');
    const a2 = idAt(1_000_002, 'a2');
    const b2 = idAt(1_000_000, 'b2');
    const b3 = idAt(1_000_001, 'b3');
    const a3 = idAt(1_000_003, 'a3');
    const start = idAt(999_000, '0');
    const fake = await fakeStream([
      (_req, res) => res.end(ready(start) + frame(a1) + frame(b1) + frame(a2) + frame(b2)),
      // The second daemon replays from a cursor that stands for an earlier point: b2 again.
      (_req, res) => res.write(ready(b2) + frame(b2) + frame(b3) + frame(a3)),
    ]);
    server = fake.server;
    const seen: string[] = [];
    const stop = new AbortController();
    const following = followTraffic(createClient({ baseUrl: fake.url, token: 't' }), SOURCE, {
      signal: stop.signal,
      onEntry: (e) => {
        seen.push(e.id);
        if (e.id === a3) stop.abort();
      },
      schedule: { next: () => 10, reset: () => {} },
    });
    const result = await following;
    expect(seen).toEqual([a1, b1, a2, b2, b3, a3]);
    expect(fake.lastEventIds).toEqual([undefined, b2]);
    expect(result.cursor).toBe(a3);
  });

  it('never delivers again the ids it was told were shown already', async () => {
    const shown = idAt(1_000_005, 'aa');
    const later = idAt(1_000_004, 'bb');
    const fake = await fakeStream([(_req, res) => res.write(ready(later) + frame(shown) + frame(later))]);
    server = fake.server;
    const seen: string[] = [];
    const stop = new AbortController();
    await followTraffic(createClient({ baseUrl: fake.url, token: 't' }), SOURCE, {
      signal: stop.signal,
      after: later,
      shown: [shown],
      onEntry: (e) => {
        seen.push(e.id);
        stop.abort();
      },
    });
    expect(seen).toEqual([later]);
  });
});
