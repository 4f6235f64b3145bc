import { contract, hyphenate, idPrefixRange, type TaplineClient } from '@tapline/shared';
import { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeBody, createSource, raw, type Harness, startHarness } from '@tapline/testkit/daemon';
import { trafficFilter } from './repo.js';

describe('GET /http-traffic/:trafficSourceId?idPrefix=', () => {
  let h: Harness;
  let token: string;
  let client: TaplineClient;
  let sourceId: string;
  const ids: string[] = [];

  beforeAll(async () => {
    h = await startHarness();
    ({ token, client } = await h.user());
    sourceId = (await createSource(client, 'main')).id;
    const other = (await createSource(client, 'other')).id;
    for (let i = 0; i < 4; i++) {
      ids.push(
        (
          await client.call(contract.composeRecord, {
            params: { trafficSourceId: sourceId },
            body: composeBody(sourceId),
          })
        ).id,
      );
      await client.call(contract.composeRecord, { params: { trafficSourceId: other }, body: composeBody(other) });
    }
  });
  afterAll(() => h.close());

  const list = (idPrefix: string) =>
    client.call(contract.listTraffic, { params: { trafficSourceId: sourceId }, query: { idPrefix, limit: 100 } });

  it('lists the entries of this source whose id begins with the prefix, newest first', async () => {
    // UUIDv7: entries made within about a minute share their first 8 hex digits.
    const shared = ids[3]?.slice(0, 8) ?? '';
    const expected = ids.filter((id) => id.startsWith(shared)).reverse();
    const all = await list(shared);
    expect(all.data.map((e) => e.id)).toEqual(expected);
    expect(all.meta.total).toBe(expected.length);
    for (const id of ids) expect((await list(id.slice(0, 23))).data.map((e) => e.id)).toContain(id);
    const whole = ids[2] ?? '';
    expect((await list(whole)).data.map((e) => e.id)).toEqual([whole]);
  });

  it('takes the prefix in any case, with or without hyphens', async () => {
    const id = ids[1] ?? '';
    const digits = id.replace(/-/g, '').slice(0, 20);
    expect((await list(digits.toUpperCase())).data.map((e) => e.id)).toContain(id);
    expect(hyphenate(digits)).toBe(id.slice(0, 23));
  });

  it('answers an empty list for a prefix nothing begins with', async () => {
    expect(await list('ffffffff')).toMatchObject({ data: [], meta: { total: 0 } });
  });

  it.each(['019a4c2', 'xyz01234', '019a4c2e-7b1d-7c3e-9f00-3a1b2c3d4e5f0', ''])(
    'a bad idPrefix (%j) is a 400',
    async (value) => {
      const answer = await raw(h, 'GET', `/http-traffic/${sourceId}?idPrefix=${encodeURIComponent(value)}`, { token });
      expect(answer.status, answer.text).toBe(400);
      expect((answer.json as { issues: { path: string }[] }).issues.map((i) => i.path)).toEqual(['idPrefix']);
    },
  );

  // Each engine states its plan in its own words; both must read the primary key's range.
  const PLANS = {
    sqlite: {
      explain: 'EXPLAIN QUERY PLAN',
      expected: /SEARCH t USING INDEX sqlite_autoindex_http_traffic_1 \(id>\? AND id<\?\)/,
    },
    postgres: {
      explain: 'EXPLAIN',
      expected:
        /Index Scan.* using http_traffic_pkey on http_traffic t[\s\S]*Index Cond: \(\(id >= .+\) AND \(id <= .+\)\)/,
    },
  };

  it('reads the primary-key range, not every entry of the source', async () => {
    const { db, dialect } = h.deps;
    const range = idPrefixRange('019a4c2e') ?? { min: '', max: '' };
    const query = db
      .selectFrom('http_traffic as t')
      .select('t.id')
      .where((eb) => trafficFilter(eb, dialect, sourceId, { idPrefix: range }))
      .orderBy('t.created_at', 'desc')
      .orderBy('t.id', 'desc')
      .compile();
    const { explain, expected } = PLANS[dialect.backend];
    // PostgreSQL reads a table of eight rows whole whatever the indexes; told not to, it shows the index it would use.
    const plan = await db.transaction().execute(async (trx) => {
      if (dialect.backend === 'postgres') await trx.executeQuery(CompiledQuery.raw('set local enable_seqscan = off'));
      return trx.executeQuery<Record<string, string>>(
        CompiledQuery.raw(`${explain} ${query.sql}`, [...query.parameters]),
      );
    });
    expect(plan.rows.map((r) => r.detail ?? r['QUERY PLAN']).join('\n')).toMatch(expected);
  });
});
