import { contract } from '@tapline/shared';
import { composeBody, createSource, type Harness, startHarness } from '@tapline/testkit/daemon';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';

// SQLite only: its ids are stored as 16-byte blobs (db/stored-values.ts); PostgreSQL keeps text.
let h: Harness;
afterAll(() => h.close());
beforeAll(async () => {
  h = await startHarness();
});

it('stores ids as their 16 bytes while the API, filters and lookups keep the UUID text', async () => {
  const { client } = await h.user();
  const source = await createSource(client);
  const user = '0f2b8c1e-3d4a-4b5c-8d6e-7f8091a2b3c4';
  const entry = await client.call(contract.composeRecord, {
    params: { trafficSourceId: source.id },
    body: { ...composeBody(source.id), trafficUserId: user },
  });
  const stored = await sql<
    Record<string, string | number>
  >`select typeof(id) as id, length(id) as id_bytes, typeof(traffic_source_id) as source, typeof(domain_id) as domain,
      typeof(pathname_id) as pathname, typeof(traffic_user_id) as user from http_traffic`.execute(
    h.deps.db.withoutPlugins(),
  );
  // The app's user id is the app's text (the `user~` filter matches inside it): it stays text.
  expect(stored.rows).toEqual([
    { id: 'blob', id_bytes: 16, source: 'blob', domain: 'blob', pathname: 'blob', user: 'text' },
  ]);

  const [listed] = (await client.call(contract.listTraffic, { params: { trafficSourceId: source.id } })).data;
  expect([listed?.id, listed?.trafficSourceId, listed?.trafficUserId]).toEqual([entry.id, source.id, user]);
  const { domainId, pathnameId } = listed ?? {};
  const [domain] = (await client.call(contract.listDomains, { params: { trafficSourceId: source.id } })).data;
  expect(domain?.id).toBe(domainId);
  const filtered = await client.call(contract.listTraffic, {
    params: { trafficSourceId: source.id },
    query: { domainId, pathnameId },
  });
  expect(filtered.data.map((e) => e.id)).toEqual([entry.id]);
  expect((await client.call(contract.getTraffic, { params: { trafficSourceId: source.id, id: entry.id } })).id).toBe(
    entry.id,
  );
  const byUser = await client.call(contract.listTraffic, {
    params: { trafficSourceId: source.id },
    query: { q: `user~"${user.slice(9, 18)}"` },
  });
  expect(byUser.data.map((e) => e.id)).toEqual([entry.id]);
  expect(
    (
      await client.call(contract.listTraffic, {
        params: { trafficSourceId: source.id },
        query: { idPrefix: entry.id.slice(0, 13) },
      })
    ).data.map((e) => e.id),
  ).toEqual([entry.id]);
});
