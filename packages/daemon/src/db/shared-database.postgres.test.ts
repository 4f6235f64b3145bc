import { contract, createClient } from '@tapline/shared';
import {
  composeBody,
  createSource,
  expectError,
  type FreshDatabase,
  freshDatabase,
  type Harness,
  startHarness,
} from '@tapline/testkit/daemon';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTokenService } from '../auth/tokens.js';
import { LOCAL_USER_EMAIL } from '../auth/users.js';
import { bootstrapLocalUser } from '../bootstrap.js';
import { systemClock } from '../clock.js';
import { openDatabase } from './open.js';

/**
 * Several daemons on one PostgreSQL database (PostgreSQL only: SQLite is one process's embedded
 * store, so this setup does not exist there). Each harness is a daemon of its own, with its own
 * pool, caches and token service, sharing nothing but the database.
 */
describe('two daemons on one PostgreSQL database', () => {
  let fresh: FreshDatabase;
  let a: Harness;
  let b: Harness;

  beforeEach(async () => {
    fresh = await freshDatabase({ migrated: true });
    a = await startHarness({ database: fresh.locator });
    b = await startHarness({ database: fresh.locator });
  });
  afterEach(async () => {
    await a.close();
    await b.close();
    await fresh.drop();
  });

  it('honour on each a token issued through the other, and refuse it on both once revoked through one', async () => {
    const ana = await a.user('ana@example.com');
    const onB = createClient({ baseUrl: b.url, token: ana.token });
    expect((await onB.call(contract.me)).email).toBe('ana@example.com');
    // Both have checked the token's signature once and know it; revocation must still reach B.
    expect((await ana.client.call(contract.me)).email).toBe('ana@example.com');
    await ana.client.call(contract.revokeOwnToken);
    await expectError(onB.call(contract.me), 401, 'Invalid token');
    await expectError(ana.client.call(contract.me), 401, 'Invalid token');
  });

  it("refuse a token revoked through one on the other's next request, while requests with it are in flight", async () => {
    const ana = await a.user('ana@example.com');
    const bob = await a.user('bob@example.com');
    const source = { ana: (await createSource(ana.client)).id, bob: (await createSource(bob.client)).id };
    const clients = {
      ana: createClient({ baseUrl: b.url, token: ana.token }),
      bob: createClient({ baseUrl: b.url, token: bob.token }),
    };
    // B's token and source lookups are gathered (db/gathered.ts): many requests share each query.
    const answers: Array<{ who: 'ana' | 'bob'; started: number; status: number }> = [];
    let revokedAt = Infinity;
    let stop = false;
    const compose = async (who: 'ana' | 'bob') => {
      const started = performance.now();
      const params = { trafficSourceId: source[who] };
      const status = await clients[who].call(contract.composeRecord, { params, body: composeBody(source[who]) }).then(
        () => 201,
        (error: unknown) => (error as { status: number }).status,
      );
      answers.push({ who, started, status });
    };
    const loop = async (who: 'ana' | 'bob') => {
      while (!stop) await compose(who);
    };
    const load = Array.from({ length: 16 }, (_, i) => loop(i % 2 === 0 ? 'ana' : 'bob'));
    await expect.poll(() => answers.length, { timeout: 10_000 }).toBeGreaterThan(40);
    await ana.client.call(contract.revokeOwnToken);
    revokedAt = performance.now();
    const after = answers.length;
    await expect.poll(() => answers.length - after, { timeout: 10_000 }).toBeGreaterThan(80);
    stop = true;
    await Promise.all(load);

    const anaAfter = answers.filter((x) => x.who === 'ana' && x.started > revokedAt);
    expect(anaAfter.length).toBeGreaterThan(10);
    expect(anaAfter.filter((x) => x.status !== 401)).toEqual([]);
    expect(answers.filter((x) => x.who === 'ana' && x.started < revokedAt && x.status === 201).length).toBeGreaterThan(
      0,
    );
    expect(answers.filter((x) => x.who === 'bob' && x.status !== 201)).toEqual([]);
  });

  it('keep meta.total exact while both store into one source at once', async () => {
    const ana = await a.user('ana@example.com');
    const onB = createClient({ baseUrl: b.url, token: ana.token });
    const source = (await createSource(ana.client)).id;
    const params = { trafficSourceId: source };
    const statuses = [200, 201, 404, 500];
    const methods = ['GET', 'POST', 'PUT'] as const;
    const body = (i: number) =>
      composeBody(source, {
        status: statuses[i % statuses.length],
        method: methods[i % methods.length],
        pathnameUrl: `/p/${i % 5}`,
      });
    // Every request on its own connection at once: group commits of both daemons overlap on the same count rows.
    const writes = Array.from({ length: 60 }, (_, i) => {
      const client = i % 2 === 0 ? ana.client : onB;
      return i % 10 === 0
        ? client
            .call(contract.composeBatch, { params, body: Array.from({ length: 20 }, (_, j) => body(i + j)) })
            .then((r) => r.ids.length)
        : client.call(contract.composeRecord, { params, body: body(i) }).then(() => 1);
    });
    const stored = (await Promise.all(writes)).reduce((sum, n) => sum + n, 0);
    expect(stored).toBe(54 + 6 * 20);

    for (const client of [ana.client, onB]) {
      expect((await client.call(contract.listTraffic, { params })).meta.total).toBe(stored);
      for (const status of statuses) {
        // The rollup (no dates) and a count of the rows (with an all-time date range) must agree.
        const fast = await client.call(contract.listTraffic, { params, query: { status: String(status) } });
        const slow = await client.call(contract.listTraffic, {
          params,
          query: { status: String(status), startDate: '2000-01-01' },
        });
        expect(fast.meta.total).toBe(slow.meta.total);
      }
    }
  });
});

describe('daemons starting together on one fresh PostgreSQL database', () => {
  it('migrate it once, under the lock, and all start', async () => {
    const fresh = await freshDatabase();
    const daemons = [1, 2, 3].map(() => openDatabase(fresh.locator, { pool: 2 }));
    try {
      await Promise.all(daemons.map((d) => d.migrate()));
      const { rows } = await sql<{
        name: string;
        n: number;
      }>`select name, count(*) as n from kysely_migration group by name`.execute(daemons[0]!.db);
      expect(rows.length).toBeGreaterThanOrEqual(5);
      expect(rows.every((r) => r.n === 1)).toBe(true);
      expect(await daemons[1]!.db.selectFrom('users').select('id').execute()).toEqual([]);
    } finally {
      for (const d of daemons) await d.close();
      await fresh.drop();
    }
  });

  it('make the local user once, and exactly one writes the token file', async () => {
    const fresh = await freshDatabase({ migrated: true });
    const homes = [1, 2, 3].map(() => mkdtempSync(join(tmpdir(), 'tapline-home-')));
    const daemons = homes.map(() => openDatabase(fresh.locator, { pool: 2 }));
    try {
      const written = await Promise.all(
        daemons.map((d, i) => bootstrapLocalUser(d.db, systemClock, createTokenService(d.db, systemClock), homes[i]!)),
      );
      expect(written.filter((path) => path !== null)).toHaveLength(1);
      expect(await daemons[0]!.db.selectFrom('users').select('email').execute()).toEqual([{ email: LOCAL_USER_EMAIL }]);
    } finally {
      for (const d of daemons) await d.close();
      for (const home of homes) rmSync(home, { recursive: true, force: true });
      await fresh.drop();
    }
  });
});
