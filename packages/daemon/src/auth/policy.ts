import type { Access, EndpointRoute, TrafficSource } from '@tapline/shared';
import type { AlertRuleRow } from '../alerts/table.js';
import { forbidden, notFound } from '../http/errors.js';
import type { WebhookRow } from '../webhooks/table.js';
import type { Principal } from './tokens.js';

/**
 * Who may see what (docs/decisions.md §26.7): the one place of the rules. `authorize` runs what an
 * endpoint's `access` declares; `mount` (http/mount.ts) calls it for every route, Express's and
 * the lean path's alike, after input validation and before the handler.
 */

/** How what an `access` names is found by id; undefined when there is none (404). */
export interface Finders {
  readonly source: (id: string) => Promise<TrafficSource | undefined>;
  readonly webhook: (id: string) => Promise<WebhookRow | undefined>;
  readonly alertRule: (id: string) => Promise<AlertRuleRow | undefined>;
}

/** What the handler of an endpoint with this access receives as `ctx.loaded`. */
export type Loaded<A extends Access> = A extends { readonly kind: 'source'; readonly optional: true }
  ? TrafficSource | null
  : A extends { readonly kind: 'source' }
    ? TrafficSource
    : A extends { readonly kind: 'webhook' }
      ? WebhookRow
      : A extends { readonly kind: 'alertRule' }
        ? AlertRuleRow
        : undefined;

/** The token's scope must be one the endpoint takes. */
export function requireScope(principal: Principal | null, endpoint: EndpointRoute): asserts principal is Principal {
  if (!principal || !endpoint.scopes?.includes(principal.scope))
    throw forbidden('scope_denied', principal?.tokenId ?? null);
}

/** Ownership, then the source restriction, then the scope: each a 403 with its own audit reason. */
export function authorizeSource(
  principal: Principal | null,
  endpoint: EndpointRoute,
  source: { readonly id: string; readonly userId: string },
): void {
  if (!principal || source.userId !== principal.user.id) throw forbidden('not_owner', principal?.tokenId ?? null);
  if (principal.sourceId !== null && principal.sourceId !== source.id)
    throw forbidden('source_denied', principal.tokenId);
  requireScope(principal, endpoint);
}

/** The input `authorize` reads a declared id from: the parsed path, query and body. */
export interface AccessInput {
  readonly params: unknown;
  readonly query: unknown;
  readonly body: unknown;
}

/** The string at `key` of a parsed part; the schemas made it one where the contract declares it. */
function idIn(part: unknown, key: string): string | undefined {
  if (typeof part !== 'object' || part === null) return undefined;
  const value: unknown = Reflect.get(part, key);
  return typeof value === 'string' ? value : undefined;
}

async function loadSource(principal: Principal | null, endpoint: EndpointRoute, finders: Finders, id: string) {
  const source = await finders.source(id);
  if (!source) throw notFound('source_not_found');
  authorizeSource(principal, endpoint, source);
  return source;
}

/** The source an owned object belongs to; gone with it only in a race with its deletion. */
async function loadOwned<T extends { readonly traffic_source_id: string }>(
  principal: Principal | null,
  endpoint: EndpointRoute,
  finders: Finders,
  item: T,
): Promise<T> {
  await loadSource(principal, endpoint, finders, item.traffic_source_id);
  return item;
}

/**
 * The checks `access` declares, in the documented order (docs/api.md, "Errors"): 404 for what is
 * named and missing, then 403. Gives what was loaded; `Loaded<E['access']>` says which.
 */
export async function authorize(
  endpoint: EndpointRoute,
  principal: Principal | null,
  input: AccessInput,
  finders: Finders,
): Promise<TrafficSource | WebhookRow | AlertRuleRow | null | undefined> {
  const { access } = endpoint;
  switch (access.kind) {
    case 'open':
      return undefined;
    case 'token':
      requireScope(principal, endpoint);
      return undefined;
    case 'account':
      requireScope(principal, endpoint);
      // A token restricted to one source acts on that source, never on the account.
      if (principal.sourceId !== null) throw forbidden('source_denied', principal.tokenId);
      return undefined;
    case 'source': {
      const named = idIn(input[access.from], access.key);
      if (named !== undefined) return loadSource(principal, endpoint, finders, named);
      if (!access.optional) throw new Error(`${endpoint.path}: its access names ${access.key}, which the input lacks`);
      // Left out: the token's own source when it is restricted to one, else what the scope allows.
      if (principal?.sourceId) return loadSource(principal, endpoint, finders, principal.sourceId);
      requireScope(principal, endpoint);
      return null;
    }
    case 'webhook': {
      const webhook = await finders.webhook(idIn(input.params, access.key) ?? '');
      if (!webhook) throw notFound('webhook_not_found');
      return loadOwned(principal, endpoint, finders, webhook);
    }
    case 'alertRule': {
      const rule = await finders.alertRule(idIn(input.params, access.key) ?? '');
      if (!rule) throw notFound('alert_rule_not_found');
      return loadOwned(principal, endpoint, finders, rule);
    }
  }
}
