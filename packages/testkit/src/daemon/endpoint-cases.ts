import { buildPath, contract, type Endpoint, queryString, type TaplineClient } from '@tapline/shared';
import { createUser, hashPassword } from '@tapline/daemon';
import { createSource, type RawAnswer, rawJson } from './fixtures.js';
import { composeBody } from '../compose.js';
import type { Harness } from './harness.js';

/** One user's resources of every kind, so each endpoint has something of theirs to act on. */
export interface World {
  readonly sourceId: string;
  readonly entryId: string;
  readonly domainId: string;
  readonly pathnameId: string;
  readonly coreLogId: string;
  readonly webhookId: string;
  readonly alertRuleId: string;
  readonly ruleId: string;
}

let worldCounter = 0;

/**
 * `local` makes the webhook an `http` one on a closed loopback port (the harness must allow
 * private webhooks), so an endpoint that sends to it never leaves the machine.
 */
export async function buildWorld(
  client: TaplineClient,
  options: { webhook?: 'discord' | 'local' } = {},
): Promise<World> {
  const n = ++worldCounter;
  const source = await createSource(client, `world-${n}`, 'shop.example.com');
  const record = await client.call(contract.composeRecord, {
    params: { trafficSourceId: source.id },
    body: composeBody(source.id, { status: 500 }),
  });
  const traffic = await client.call(contract.listTraffic, { params: { trafficSourceId: source.id } });
  const entry = traffic.data[0];
  if (!entry || entry.id !== record.id) throw new Error('the composed record is not listed');
  const log = await client.call(contract.createCoreLog, {
    params: { trafficSourceId: source.id },
    body: { title: 'boom', httpTrafficId: record.id },
  });
  const webhook = await client.call(contract.createWebhook, {
    params: { trafficSourceId: source.id },
    body:
      options.webhook === 'local'
        ? { type: 'http', level: 'fatal', value: `http://127.0.0.1:9/hook-${n}` }
        : { type: 'discord', level: 'fatal', value: `https://discord.com/api/webhooks/${n}/tok-${n}` },
  });
  const alertRule = await client.call(contract.createAlertRule, {
    params: { trafficSourceId: source.id },
    body: { when: 'error_rate > 5%', webhookIds: [webhook.id] },
  });
  const rule = await client.call(contract.createRouteRule, {
    params: { trafficSourceId: source.id },
    body: { template: '/products/{slug}' },
  });
  return {
    sourceId: source.id,
    entryId: record.id,
    domainId: entry.domainId,
    pathnameId: entry.pathnameId,
    coreLogId: log.data.id,
    webhookId: webhook.id,
    alertRuleId: alertRule.id,
    ruleId: rule.id,
  };
}

export interface RequestInput {
  readonly params?: Record<string, string>;
  readonly query?: Record<string, string>;
  readonly body?: unknown;
}

/** A valid request of each endpoint against `world`; a new contract endpoint needs a line here. */
export const VALID_REQUESTS: Record<string, (world: World) => RequestInput> = {
  health: () => ({}),
  openapi: () => ({}),
  createToken: () => ({ body: { email: 'password-user@example.com', password: 'correct horse' } }),
  me: () => ({}),
  // The harness's users have no password, so none is asked for; a new one each time, as a test may call it twice.
  changePassword: () => ({ body: { newPassword: `new password ${++worldCounter}` } }),
  revokeOwnToken: () => ({}),
  listTrafficSources: () => ({}),
  createTrafficSource: () => ({ body: { name: `new-${++worldCounter}`, trafficDomain: 'new.example.com' } }),
  updateTrafficSource: (w) => ({
    params: { trafficSourceId: w.sourceId },
    body: { name: `renamed-${++worldCounter}` },
  }),
  deleteTrafficSource: (w) => ({ params: { trafficSourceId: w.sourceId } }),
  listCoreLogs: (w) => ({ params: { trafficSourceId: w.sourceId } }),
  createCoreLog: (w) => ({
    params: { trafficSourceId: w.sourceId },
    body: { title: 'another', httpTrafficId: w.entryId },
  }),
  listWebhooks: (w) => ({ params: { trafficSourceId: w.sourceId } }),
  createWebhook: (w) => ({
    params: { trafficSourceId: w.sourceId },
    body: { type: 'http', level: 'warning', value: `https://hooks.example.com/${++worldCounter}` },
  }),
  deleteWebhook: (w) => ({ params: { webhookId: w.webhookId } }),
  listWebhookDeliveries: (w) => ({ params: { webhookId: w.webhookId } }),
  testWebhook: (w) => ({ params: { webhookId: w.webhookId } }),
  composeRecord: (w) => ({ params: { trafficSourceId: w.sourceId }, body: composeBody(w.sourceId) }),
  composeBatch: (w) => ({
    params: { trafficSourceId: w.sourceId },
    body: [composeBody(w.sourceId), composeBody(w.sourceId, { status: 404 })],
  }),
  ingestLog: (w) => ({ body: { ...composeBody(w.sourceId), requestHeaders: '{"accept":"*/*"}', requestBody: 'null' } }),
  otlpTraces: () => ({ body: { resourceSpans: [] } }),
  exportHar: (w) => ({ params: { trafficSourceId: w.sourceId }, query: { level: 'fatal' } }),
  listTraffic: (w) => ({ params: { trafficSourceId: w.sourceId }, query: { level: 'fatal' } }),
  getTraffic: (w) => ({ params: { trafficSourceId: w.sourceId, id: w.entryId } }),
  listDomains: (w) => ({ params: { trafficSourceId: w.sourceId } }),
  listPathnames: (w) => ({ params: { trafficSourceId: w.sourceId }, query: { domainId: w.domainId } }),
  streamTraffic: (w) => ({ params: { trafficSourceId: w.sourceId }, query: { level: 'fatal' } }),
  getStats: (w) => ({ params: { trafficSourceId: w.sourceId }, query: { since: '1h', by: 'route' } }),
  listRoutes: (w) => ({ params: { trafficSourceId: w.sourceId } }),
  getMetrics: (w) => ({ query: { source: w.sourceId } }),
  listAlertRules: (w) => ({ params: { trafficSourceId: w.sourceId } }),
  createAlertRule: (w) => ({
    params: { trafficSourceId: w.sourceId },
    body: { when: 'p95 > 800ms', route: '/api/orders', webhookIds: [w.webhookId] },
  }),
  listAlertHistory: (w) => ({ params: { trafficSourceId: w.sourceId } }),
  deleteAlertRule: (w) => ({ params: { ruleId: w.alertRuleId } }),
  testAlertRule: (w) => ({ params: { ruleId: w.alertRuleId } }),
  listRouteRules: (w) => ({ params: { trafficSourceId: w.sourceId } }),
  createRouteRule: (w) => ({
    params: { trafficSourceId: w.sourceId },
    body: { template: `/rules-${++worldCounter}/{id}` },
  }),
  deleteRouteRule: (w) => ({ params: { trafficSourceId: w.sourceId, ruleId: w.ruleId } }),
  suggestRoutes: (w) => ({ params: { trafficSourceId: w.sourceId } }),
  inferApiContract: (w) => ({ params: { trafficSourceId: w.sourceId }, query: { since: '1h' } }),
  checkApiContract: (w) => ({
    params: { trafficSourceId: w.sourceId },
    body: { spec: { openapi: '3.1.0', info: { title: 'cases', version: '1' }, paths: {} } },
  }),
};

export const endpoints = (): Array<[string, Endpoint]> => Object.entries(contract as Record<string, Endpoint>);
export const authenticatedEndpoints = () => endpoints().filter(([, e]) => e.scopes !== null);

/** Lists answer `data` (and `meta`); these endpoints name a resource that belongs to a source. */
export const isList = (e: Endpoint) =>
  e.method === 'GET' &&
  e.status === 200 &&
  /^\/(traffic-source|core-log|webhooks|http-traffic|domains|pathnames)(\/:trafficSourceId)?$/.test(e.path);

/**
 * Sends any endpoint's request as plain HTTP, whatever the contract's types say. A stream that
 * opens (2xx) is closed at once: its status and headers are the answer, its body never ends.
 */
export async function send(
  h: Harness,
  token: string | undefined,
  e: Endpoint,
  input: RequestInput,
): Promise<RawAnswer> {
  const path = buildPath(e.path, input.params) + queryString(input.query);
  if (!('events' in e)) return rawJson(h, e.method, path, token, input.body);
  const abort = new AbortController();
  const response = await h.fetch(path, {
    method: e.method,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    signal: abort.signal,
  });
  if (response.ok) {
    abort.abort();
    return { status: response.status, text: '', json: undefined, headers: response.headers };
  }
  const text = await response.text();
  return {
    status: response.status,
    text,
    json: text ? (JSON.parse(text) as unknown) : undefined,
    headers: response.headers,
  };
}

/** A user who logs in with a password, for `POST /auth/token`. */
export async function passwordUser(h: Harness, email = 'password-user@example.com', password = 'correct horse') {
  return createUser(h.deps.db, h.deps.clock, { email, passwordHash: await hashPassword(password) });
}
