import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import {
  adminShutdown,
  composeBody,
  connectionRefused,
  createSource,
  databaseOutage,
  type Harness,
  raw,
  rawJson,
  sqliteWriteFailed,
  startHarness,
} from '@tapline/testkit/daemon';

const UNAVAILABLE = {
  statusCode: 503,
  error: 'The database is unavailable; retry shortly',
  code: 'database_unavailable',
};

/** A harness whose log lines are kept, and whose database can be made to fail. */
async function failingDaemon() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write: (chunk: Buffer, _e, done) => (lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>), done()),
  });
  const h = await startHarness({ logger: pino({ level: 'warn' }, sink), pruner: { start: false } });
  const user = await h.user();
  const source = await createSource(user.client);
  return { h, user, source, lines, outage: databaseOutage(h.deps.db) };
}

describe('a database that cannot serve (docs/decisions.md §2.7)', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('is answered 503 with Retry-After on every kind of request, and served again once it is back, without a restart', async () => {
    const d = await failingDaemon();
    h = d.h;
    const { user, source } = d;
    const compose = () => rawJson(d.h, 'POST', `/http-traffic-record/${source.id}`, user.token, composeBody(source.id));
    d.outage.fail(adminShutdown());
    const answers = {
      compose: await compose(),
      // Compressed: Express reads it, not the lean path.
      gzipped: await raw(d.h, 'POST', `/http-traffic-record/${source.id}`, {
        token: user.token,
        body: gzipSync(JSON.stringify(composeBody(source.id))),
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      }),
      batch: await rawJson(d.h, 'POST', `/http-traffic-record/${source.id}/batch`, user.token, [
        composeBody(source.id),
        composeBody(source.id),
      ]),
      list: await raw(d.h, 'GET', `/http-traffic/${source.id}`, { token: user.token }),
      login: await rawJson(d.h, 'POST', '/auth/token', undefined, { email: user.email, password: 'whatever-it-is' }),
    };
    for (const [name, answer] of Object.entries(answers)) {
      expect({ status: answer.status, retryAfter: answer.headers.get('retry-after'), body: answer.json }, name).toEqual(
        { status: 503, retryAfter: '2', body: UNAVAILABLE },
      );
    }
    d.outage.heal();
    expect((await compose()).status).toBe(201);
    expect((await raw(d.h, 'GET', `/http-traffic/${source.id}`, { token: user.token })).status).toBe(200);
  });

  it('refuses each request of a failed group commit, and the queue stores the next ones', async () => {
    const d = await failingDaemon();
    h = d.h;
    const { user, source } = d;
    const many = () =>
      Promise.all(
        Array.from({ length: 20 }, () =>
          rawJson(d.h, 'POST', `/http-traffic-record/${source.id}`, user.token, composeBody(source.id)),
        ),
      );
    d.outage.fail(sqliteWriteFailed());
    expect((await many()).map((a) => a.status)).toEqual(Array(20).fill(503));
    d.outage.heal();
    expect((await many()).map((a) => a.status)).toEqual(Array(20).fill(201));
  });

  it('answers 503 to every request of a burst whose token lookups fail together, never 401 or 500', async () => {
    const d = await failingDaemon();
    h = d.h;
    const other = await d.h.user('other@example.com');
    const otherSource = await createSource(other.client);
    const burst = () =>
      Promise.all(
        Array.from({ length: 24 }, (_, i) => {
          const [who, source] = i % 2 === 0 ? [d.user, d.source] : [other, otherSource];
          return rawJson(d.h, 'POST', `/http-traffic-record/${source.id}`, who.token, composeBody(source.id));
        }),
      );
    // Both tokens' signatures are checked and known: what fails below is their lookups (db/gathered.ts on PostgreSQL).
    expect((await burst()).map((a) => a.status)).toEqual(Array(24).fill(201));
    d.outage.fail(adminShutdown());
    const failed = await burst();
    expect(failed.map((a) => ({ status: a.status, body: a.json }))).toEqual(
      Array(24).fill({ status: 503, body: UNAVAILABLE }),
    );
    d.outage.heal();
    expect((await burst()).map((a) => a.status)).toEqual(Array(24).fill(201));
  });

  it('logs the outage with its cause, once per cause however many requests it fails, never with a stack', async () => {
    const d = await failingDaemon();
    h = d.h;
    const { user, source } = d;
    d.outage.fail(adminShutdown());
    for (let i = 0; i < 5; i++)
      await rawJson(d.h, 'POST', `/http-traffic-record/${source.id}`, user.token, composeBody(source.id));
    d.outage.fail(connectionRefused());
    for (let i = 0; i < 5; i++) await raw(d.h, 'GET', `/http-traffic/${source.id}`, { token: user.token });
    await new Promise((resolve) => setImmediate(resolve));
    expect(d.lines.map(({ event, cause }) => ({ event, cause }))).toEqual([
      { event: 'database_unavailable', cause: '57P01 terminating connection due to administrator command' },
      { event: 'database_unavailable', cause: 'connect ECONNREFUSED 127.0.0.1:5432' },
    ]);
    expect(JSON.stringify(d.lines)).not.toMatch(/stack|\\n\s+at /);
  });
});
