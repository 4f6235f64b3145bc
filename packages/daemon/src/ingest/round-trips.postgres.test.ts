import { composeBody, createSource, type Harness, rawJson, startHarness } from '@tapline/testkit/daemon';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/** The text of a query as node-postgres was given it: a string, or a named statement's config. */
const textOf = (query: unknown): string => {
  if (typeof query === 'string') return query;
  const text = (query as { text?: unknown } | null)?.text;
  return typeof text === 'string' ? text : '';
};

/**
 * What one group commit costs in round trips on PostgreSQL, where each is a wait on the server and
 * on the daemon's event loop (docs/decisions.md §20.22, §20.37).
 */
describe('an ingest group on PostgreSQL', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness({ pruner: { start: false }, routeBackfill: { start: false } });
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await h.close();
  });

  it('stores a single compose with its statistics in three round trips on its connection, once its rules are known', async () => {
    const user = await h.user();
    const sourceId = (await createSource(user.client)).id;
    const compose = () =>
      rawJson(
        h,
        'POST',
        `/http-traffic-record/${sourceId}`,
        user.token,
        composeBody(sourceId, { pathnameUrl: '/orders/7' }),
      );
    // The first makes the names and the statistics' rows, and prepares what is kept on its connection.
    expect((await compose()).status).toBe(201);
    const sent = vi.spyOn(pg.Client.prototype, 'query');
    expect((await compose()).status).toBe(201);

    const byClient = new Map<unknown, string[]>();
    sent.mock.calls.forEach(([query], i) => {
      const client = sent.mock.contexts[i];
      byClient.set(client, [...(byClient.get(client) ?? []), textOf(query)]);
    });
    // The token's and the source's lookups may have used the same connection before it.
    const texts = [...byClient.values()].find((texts) => texts.some((text) => text.startsWith('begin'))) ?? [];
    const transaction = texts.slice(texts.findIndex((text) => text.startsWith('begin')));
    // A kept statement is prepared once a connection, alone: the group used whichever the pool gave.
    const trips = transaction.filter((text) => !text.startsWith('prepare '));
    expect(trips).toHaveLength(3);
    const [first = '', second = '', last = ''] = trips;
    // begin, the rules' read, the count rollup, the statistics' rows made and read locked (minutes,
    // then hours and days) and the webhooks' read, in the order of §16.6's locks
    expect(first).toMatch(
      /^begin;\n.*execute tapline_joined_\d+.*insert into "traffic_counts".*insert into "route_stats".*from "route_stats".*for update.*insert into "route_rollups".*from "route_rollups".*for update.*execute tapline_joined_\d+/s,
    );
    // the entries, numbered
    expect(second).toMatch(/insert into "http_traffic"/);
    // the statistics written back, with the commit
    expect(last).toMatch(/^insert into "route_stats".*insert into "route_rollups".*;\ncommit$/s);
  });
});
