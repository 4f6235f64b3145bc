import { contract, type Endpoint, type Scope, type TrafficSource } from '@tapline/shared';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AlertRuleRow } from '../alerts/table.js';
import type { WebhookRow } from '../webhooks/table.js';
import { authorize, type Finders } from './policy.js';
import type { Principal } from './tokens.js';

const OWNER = '00000000-0000-4000-8000-000000000001';
const OTHER_USER = '00000000-0000-4000-8000-000000000002';
const SHOP = '10000000-0000-4000-8000-000000000001';
const BLOG = '10000000-0000-4000-8000-000000000002';
const GONE = '10000000-0000-4000-8000-00000000000f';
const HOOK = '20000000-0000-4000-8000-000000000001';

const source = (id: string, userId: string): TrafficSource => ({
  id,
  userId,
  name: id,
  trafficDomain: 'example.com',
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T10:00:00.000Z',
});
const SOURCES = new Map([SHOP, BLOG].map((id) => [id, source(id, OWNER)]));

// The policy reads two columns of a webhook: its id is what is named, its source what is checked.
const hook = { id: HOOK, traffic_source_id: SHOP } as WebhookRow;
const finders: Finders = {
  source: (id) => Promise.resolve(SOURCES.get(id)),
  webhook: (id) => Promise.resolve(id === HOOK ? hook : undefined),
  alertRule: () => Promise.resolve<AlertRuleRow | undefined>(undefined),
};

const principal = (scope: Scope, sourceId: string | null = null, userId = OWNER): Principal => ({
  user: { id: userId, email: 'a@example.com', name: 'A' },
  tokenId: 'token-1',
  scope,
  sourceId,
});

/** What `authorize` refuses with: status, code and the audit's reason; or what it loaded. */
async function outcome(endpoint: Endpoint, who: Principal, input: { params?: unknown; query?: unknown }) {
  try {
    const loaded = await authorize(
      endpoint,
      who,
      { params: input.params, query: input.query, body: undefined },
      finders,
    );
    return { loaded: loaded && 'id' in loaded ? loaded.id : loaded };
  } catch (error) {
    const { status, code, audit } = error as { status: number; code: string; audit?: { reason: string } };
    return { status, code, reason: audit?.reason };
  }
}

describe('the authorization policy', () => {
  it('answers 404 for a source that does not exist before any 403, whoever asks', async () => {
    const stranger = principal('read', null, OTHER_USER);
    expect(await outcome(contract.listTraffic, stranger, { params: { trafficSourceId: GONE } })).toEqual({
      status: 404,
      code: 'source_not_found',
      reason: undefined,
    });
  });

  it("refuses another user's source (not_owner), a source outside the token's restriction (source_denied), a scope the endpoint does not take (scope_denied)", async () => {
    const params = { trafficSourceId: BLOG };
    const forbidden = (reason: string) => ({ status: 403, code: 'forbidden', reason });
    expect(await outcome(contract.listTraffic, principal('read', null, OTHER_USER), { params })).toEqual(
      forbidden('not_owner'),
    );
    expect(await outcome(contract.listTraffic, principal('read', SHOP), { params })).toEqual(
      forbidden('source_denied'),
    );
    expect(await outcome(contract.deleteTrafficSource, principal('read'), { params })).toEqual(
      forbidden('scope_denied'),
    );
    expect(await outcome(contract.listTraffic, principal('read', BLOG), { params })).toEqual({ loaded: BLOG });
  });

  it("restricts an account-wide endpoint to unrestricted tokens, and loads a webhook's source to check it", async () => {
    expect(await outcome(contract.createTrafficSource, principal('full', SHOP), {})).toMatchObject({
      status: 403,
      reason: 'source_denied',
    });
    expect(await outcome(contract.createTrafficSource, principal('full'), {})).toEqual({ loaded: undefined });
    const params = { webhookId: HOOK };
    expect(await outcome(contract.deleteWebhook, principal('full', BLOG), { params })).toMatchObject({
      status: 403,
      reason: 'source_denied',
    });
    expect(await outcome(contract.deleteWebhook, principal('full'), { params })).toEqual({ loaded: HOOK });
    expect(await outcome(contract.deleteWebhook, principal('full'), { params: { webhookId: GONE } })).toMatchObject({
      status: 404,
      code: 'webhook_not_found',
    });
  });

  it("takes an optional source from the query, else the token's restriction, else checks the scope alone", async () => {
    expect(await outcome(contract.getMetrics, principal('read'), { query: { source: BLOG } })).toEqual({
      loaded: BLOG,
    });
    expect(await outcome(contract.getMetrics, principal('read', SHOP), { query: {} })).toEqual({ loaded: SHOP });
    expect(await outcome(contract.getMetrics, principal('read'), { query: {} })).toEqual({ loaded: null });
    expect(await outcome(contract.getMetrics, principal('ingest'), { query: {} })).toMatchObject({
      status: 403,
      reason: 'scope_denied',
    });
  });

  it('has every id an endpoint declares in the part it is read from', () => {
    const keysOf = (schema: z.ZodType | undefined) => (schema instanceof z.ZodObject ? Object.keys(schema.shape) : []);
    for (const [name, e] of Object.entries(contract) as [string, Endpoint][]) {
      const { access } = e;
      expect(access.kind === 'open', name).toBe(e.scopes === null);
      if (
        access.kind === 'webhook' ||
        access.kind === 'alertRule' ||
        (access.kind === 'source' && access.from === 'params')
      )
        expect(e.path, name).toContain(`:${access.key}`);
      if (access.kind === 'source' && access.from !== 'params')
        expect(keysOf(access.from === 'body' ? e.body : e.query), name).toContain(access.key);
    }
  });
});
