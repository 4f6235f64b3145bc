import { CAPTURE_PATHS, PAGE_START_PATHS } from './paths.js';
import type { Scope } from './schemas/common.js';

export type HttpVerb = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * Who may call an endpoint and what it names (docs/decisions.md §26.7). The daemon's `mount`
 * runs these checks, after input validation and before the handler, and hands the handler what
 * it loaded; the policy (ownership, source restriction, scope) is the daemon's auth/policy.ts.
 * - `open`: no token (`scopes: null`).
 * - `token`: a token whose scope the endpoint takes.
 * - `account`: that, and a token not restricted to one source (it acts on the account).
 * - `source`: the traffic source whose id is `key` of the path, body or query: 404 when there is
 *   none, then 403 unless the token's user owns it, its restriction allows it and its scope fits.
 *   `optional`: when the query leaves it out, the token's own source if it is restricted to one,
 *   else none (the scope alone is checked).
 * - `webhook`, `alertRule`: the webhook or alert rule whose id is `key` of the path (404), then
 *   its traffic source as above.
 */
export type Access =
  | { readonly kind: 'open' }
  | { readonly kind: 'token' }
  | { readonly kind: 'account' }
  | {
      readonly kind: 'source';
      readonly from: 'params' | 'body' | 'query';
      readonly key: string;
      readonly optional?: true;
    }
  | { readonly kind: 'webhook' | 'alertRule'; readonly key: string };

/**
 * What an endpoint of the API is but its schemas: enough for the daemon to mount it (docs/decisions.md
 * §20.23). The contract (contract.ts) is these with the schemas, one object per endpoint.
 */
export interface EndpointRoute {
  readonly method: HttpVerb;
  /** Express-style path: `/webhooks/:webhookId`. */
  readonly path: string;
  readonly summary: string;
  readonly tag: string;
  /** Token scopes allowed to call it; `null` marks an open endpoint that needs no token. */
  readonly scopes: readonly Scope[] | null;
  /** What the daemon checks, and loads, before the handler runs. */
  readonly access: Access;
  readonly status: 200 | 201 | 204;
  /** Documented error statuses besides the 400/401 every authenticated endpoint may give. */
  readonly errors: readonly number[];
  /** Largest accepted body in bytes; the daemon's `--max-body` applies when absent. */
  readonly maxBody?: number;
  /** Where the spec says more than the summary can. */
  readonly description?: string;
  /** Media types of the body and the answer when not only JSON (OTLP answers in the request's). */
  readonly media?: readonly string[];
  /**
   * Which of the endpoint's fields the contract gives a schema (a `response: null` is none): what
   * the daemon reads, and what it may leave unread until a request needs it (§20.23).
   */
  readonly schemas: readonly SchemaPart[];
}

/** The fields of an endpoint that hold its schemas (contract.ts). */
export type SchemaPart = 'params' | 'query' | 'body' | 'response' | 'events';

/** The Prometheus text exposition format that `GET /metrics` answers in. */
export const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

const OPEN = { kind: 'open' } as const;
const TOKEN = { kind: 'token' } as const;
const ACCOUNT = { kind: 'account' } as const;
/** The source of the path's `:trafficSourceId`, the access of most endpoints. */
const SOURCE = { kind: 'source', from: 'params', key: 'trafficSourceId' } as const;
const BODY_SOURCE = { kind: 'source', from: 'body', key: 'trafficSourceId' } as const;
const NAMED_SOURCE = { kind: 'source', from: 'query', key: 'source', optional: true } as const;
const WEBHOOK = { kind: 'webhook', key: 'webhookId' } as const;
const ALERT_RULE = { kind: 'alertRule', key: 'ruleId' } as const;

const ALL = ['full', 'read', 'ingest'] as const;
const READ = ['full', 'read'] as const;
const FULL = ['full'] as const;
const INGEST = ['full', 'ingest'] as const;

/**
 * Every endpoint of the contract but its schemas, in the contract's order. A start mounts these
 * and builds no schema: the contract (contract.ts), which adds them, is read by a route's first
 * request (docs/decisions.md §20.23).
 */
export const contractRoutes = {
  health: {
    method: 'GET',
    path: '/healthz',
    tag: 'meta',
    summary: 'Daemon health and version',
    scopes: null,
    access: OPEN,
    status: 200,
    errors: [],
    schemas: ['response'],
  },
  openapi: {
    method: 'GET',
    path: '/openapi.json',
    tag: 'meta',
    summary: 'This OpenAPI 3.1 document',
    scopes: null,
    access: OPEN,
    status: 200,
    errors: [],
    schemas: ['response'],
  },
  createToken: {
    method: 'POST',
    path: '/auth/token',
    tag: 'auth',
    summary: 'Exchange email and password for a token',
    scopes: null,
    access: OPEN,
    status: 201,
    errors: [401, 429],
    schemas: ['body', 'response'],
  },
  revokeOwnToken: {
    method: 'DELETE',
    path: '/auth/token',
    tag: 'auth',
    summary: 'Revoke the token that makes this request (log out)',
    scopes: FULL,
    access: TOKEN,
    status: 204,
    errors: [403],
    schemas: [],
  },
  changePassword: {
    method: 'POST',
    path: '/auth/password',
    tag: 'auth',
    summary: "Change the password of the token's own user",
    scopes: FULL,
    access: ACCOUNT,
    status: 204,
    errors: [403, 429],
    description:
      'currentPassword is required once the user has a password. Tokens already issued stay valid. A source-restricted token may not call it.',
    schemas: ['body'],
  },
  me: {
    method: 'GET',
    path: PAGE_START_PATHS.me,
    tag: 'auth',
    summary: "The token's user, scope and source restriction",
    scopes: ALL,
    access: TOKEN,
    status: 200,
    errors: [],
    schemas: ['response'],
  },
  listTrafficSources: {
    method: 'GET',
    path: CAPTURE_PATHS.listTrafficSources,
    tag: 'traffic-source',
    summary: "List the user's traffic sources (4.1)",
    scopes: ALL,
    access: TOKEN,
    status: 200,
    errors: [],
    schemas: ['query', 'response'],
  },
  createTrafficSource: {
    method: 'POST',
    path: '/traffic-source',
    tag: 'traffic-source',
    summary: 'Create a traffic source',
    scopes: FULL,
    access: ACCOUNT,
    status: 201,
    errors: [403, 409],
    schemas: ['body', 'response'],
  },
  updateTrafficSource: {
    method: 'PATCH',
    path: '/traffic-source/:trafficSourceId',
    tag: 'traffic-source',
    summary: 'Rename a traffic source or change its domain',
    scopes: FULL,
    access: SOURCE,
    status: 200,
    errors: [403, 404, 409],
    schemas: ['params', 'body', 'response'],
  },
  deleteTrafficSource: {
    method: 'DELETE',
    path: '/traffic-source/:trafficSourceId',
    tag: 'traffic-source',
    summary: 'Delete a traffic source and all of its data',
    scopes: FULL,
    access: SOURCE,
    status: 204,
    errors: [403, 404],
    schemas: ['params'],
  },
  listCoreLogs: {
    method: 'GET',
    path: '/core-log/:trafficSourceId',
    tag: 'core-log',
    summary: 'List core logs of a traffic source (4.2)',
    scopes: READ,
    access: SOURCE,
    status: 200,
    errors: [403, 404],
    schemas: ['params', 'query', 'response'],
  },
  createCoreLog: {
    method: 'POST',
    path: CAPTURE_PATHS.createCoreLog,
    tag: 'core-log',
    summary: 'Write a core log',
    scopes: INGEST,
    access: SOURCE,
    status: 201,
    errors: [403, 404],
    schemas: ['params', 'body', 'response'],
  },
  listWebhooks: {
    method: 'GET',
    path: '/webhooks/:trafficSourceId',
    tag: 'webhooks',
    summary: 'List webhooks of a traffic source (4.3)',
    scopes: READ,
    access: SOURCE,
    status: 200,
    errors: [403, 404],
    schemas: ['params', 'query', 'response'],
  },
  createWebhook: {
    method: 'POST',
    path: '/webhooks/:trafficSourceId',
    tag: 'webhooks',
    summary: 'Add a webhook to a traffic source',
    scopes: FULL,
    access: SOURCE,
    status: 201,
    errors: [403, 404, 409],
    schemas: ['params', 'body', 'response'],
  },
  deleteWebhook: {
    method: 'DELETE',
    path: '/webhooks/:webhookId',
    tag: 'webhooks',
    summary: 'Delete a webhook (4.4)',
    scopes: FULL,
    access: WEBHOOK,
    status: 204,
    errors: [403, 404],
    schemas: ['params'],
  },
  composeRecord: {
    method: 'POST',
    path: '/http-traffic-record/:trafficSourceId',
    tag: 'http-traffic',
    summary: 'Compose an HTTP traffic record (4.5)',
    scopes: INGEST,
    access: SOURCE,
    status: 201,
    errors: [403, 404],
    schemas: ['params', 'body', 'response'],
  },
  ingestLog: {
    method: 'POST',
    path: '/ingest-log',
    tag: 'http-traffic',
    summary: 'Compose a record as the Arkyn SDK (@arkyn/server) sends it',
    scopes: INGEST,
    access: BODY_SOURCE,
    status: 201,
    errors: [403, 404, 413],
    description:
      'The compose body (4.5) with requestHeaders, queryParams, responseHeaders, requestBody and responseBody JSON-encoded as strings; ' +
      "the source is the body's trafficSourceId. Each string is decoded, then every compose rule, redaction included, applies (docs/arkyn.md).",
    schemas: ['body', 'response'],
  },
  otlpTraces: {
    method: 'POST',
    path: '/v1/traces',
    tag: 'otlp',
    summary: 'OTLP/HTTP trace export: server spans of HTTP requests become entries',
    scopes: INGEST,
    access: TOKEN,
    status: 200,
    errors: [403, 404, 413, 503],
    media: ['application/x-protobuf', 'application/json'],
    description:
      "OTLP/HTTP (protobuf or JSON, gzip accepted). The source: the `x-tapline-source` header (name or id), else the token's source " +
      "restriction, else the source named as the resource's `service.name`. Exception events become core logs (docs/opentelemetry.md). " +
      'Errors are `google.rpc.Status` for protobuf requests and the usual error body for JSON ones.',
    schemas: ['body', 'response'],
  },
  listTraffic: {
    method: 'GET',
    path: PAGE_START_PATHS.listTraffic,
    tag: 'http-traffic',
    summary: 'List HTTP traffic of a traffic source (4.6)',
    scopes: READ,
    access: SOURCE,
    status: 200,
    errors: [403, 404],
    schemas: ['params', 'query', 'response'],
  },
  exportHar: {
    method: 'GET',
    path: '/http-traffic/:trafficSourceId/export.har',
    tag: 'http-traffic',
    summary: 'Every matching entry as a HAR 1.2 document, streamed',
    scopes: READ,
    access: SOURCE,
    status: 200,
    errors: [403, 404],
    description:
      "The list's filters and `q`; every match, oldest first, with headers, query and bodies as stored (redacted). Written as it is read, " +
      'page by page, so any number of entries streams in bounded memory. Opens in browser devtools and HAR viewers.',
    schemas: ['params', 'query', 'response'],
  },
  getTraffic: {
    method: 'GET',
    path: '/http-traffic/:trafficSourceId/:id',
    tag: 'http-traffic',
    summary: 'One whole HTTP traffic record',
    scopes: READ,
    access: SOURCE,
    status: 200,
    errors: [403, 404],
    schemas: ['params', 'response'],
  },
  listDomains: {
    method: 'GET',
    path: '/domains/:trafficSourceId',
    tag: 'http-traffic',
    summary: 'Domains seen for a traffic source',
    scopes: READ,
    access: SOURCE,
    status: 200,
    errors: [403, 404],
    schemas: ['params', 'query', 'response'],
  },
  getStats: {
    method: 'GET',
    path: '/stats/:trafficSourceId',
    tag: 'statistics',
    summary: 'Per-route request counts, error counts, latency percentiles and bytes over a window',
    scopes: READ,
    access: SOURCE,
    status: 200,
    errors: [403, 404],
    description:
      'Extension (docs/statistics.md). `since`/`until`: durations back from now or ISO 8601 times (default the last hour); `by`: route,method (default), route, method or status; ' +
      '`where`: the filter language on route, method, status (by class), level and domain; `compare`: previous or a duration back; `series=1` with `bucket`.',
    schemas: ['params', 'query', 'response'],
  },
  listRoutes: {
    method: 'GET',
    path: '/routes/:trafficSourceId',
    tag: 'statistics',
    summary: 'Route templates of a traffic source, with their origin and stored entries',
    scopes: READ,
    access: SOURCE,
    status: 200,
    errors: [403, 404],
    schemas: ['params', 'query', 'response'],
  },
  getMetrics: {
    method: 'GET',
    path: '/metrics',
    tag: 'statistics',
    summary: "Prometheus metrics: per-route request counters and latency histograms, and the daemon's health",
    scopes: READ,
    access: NAMED_SOURCE,
    status: 200,
    errors: [403, 404, 503],
    media: [PROMETHEUS_TEXT],
    description:
      'Extension (docs/statistics.md, "Prometheus"). The Prometheus text format. Without `source`, the series of every source the token may see ' +
      '(a token restricted to one source: that one); with `source`, that source alone (404, 403 as every source route). Request counters and ' +
      "latency histograms count what this daemon committed since it started; the health gauges are the daemon's and its database's.",
    schemas: ['query', 'response'],
  },
  listAlertRules: {
    method: 'GET',
    path: '/alerts/:trafficSourceId',
    tag: 'alerts',
    summary: 'Alert rules of a traffic source, with their state',
    scopes: READ,
    access: SOURCE,
    status: 200,
    errors: [403, 404],
    description:
      'Extension (docs/alerts.md). `webhookIds` lists the webhooks that still exist: empty means the rule has no target.',
    schemas: ['params', 'query', 'response'],
  },
  createAlertRule: {
    method: 'POST',
    path: '/alerts/:trafficSourceId',
    tag: 'alerts',
    summary: 'Add an alert rule on the route numbers',
    scopes: FULL,
    access: SOURCE,
    status: 201,
    errors: [403, 404],
    description:
      'Extension (docs/alerts.md). `when`: `p50|p90|p95|p99 > 800ms`, `error_rate > 5%`, `client_error_rate > 20%`, `requests < 10/min`, `p95 > 2x baseline`. ' +
      "`for` and `window` from 1m to 24h; every webhook must belong to the same source (another source: 404; another user's: 403), and nothing is created otherwise.",
    schemas: ['params', 'body', 'response'],
  },
  listAlertHistory: {
    method: 'GET',
    path: '/alerts/:trafficSourceId/history',
    tag: 'alerts',
    summary: "Transitions of a source's alert rules, newest first",
    scopes: READ,
    access: SOURCE,
    status: 200,
    errors: [403, 404],
    schemas: ['params', 'query', 'response'],
  },
  deleteAlertRule: {
    method: 'DELETE',
    path: '/alerts/rules/:ruleId',
    tag: 'alerts',
    summary: 'Delete an alert rule and its history',
    scopes: FULL,
    access: ALERT_RULE,
    status: 204,
    errors: [403, 404],
    schemas: ['params'],
  },
  testAlertRule: {
    method: 'POST',
    path: '/alerts/rules/:ruleId/test',
    tag: 'alerts',
    summary: "Queue a sample firing message for each of a rule's webhooks",
    scopes: FULL,
    access: ALERT_RULE,
    status: 200,
    errors: [403, 404],
    description:
      'Through the outbox, as real alerts: delivered with retries, visible in `GET /webhooks/:webhookId/deliveries`.',
    schemas: ['params', 'response'],
  },
  listRouteRules: {
    method: 'GET',
    path: '/routes/:trafficSourceId/rules',
    tag: 'statistics',
    summary: 'Route rules of a traffic source, newest first, with the entries each holds',
    scopes: READ,
    access: SOURCE,
    status: 200,
    errors: [403, 404],
    schemas: ['params', 'query', 'response'],
  },
  createRouteRule: {
    method: 'POST',
    path: '/routes/:trafficSourceId/rules',
    tag: 'statistics',
    summary: 'Add a route rule: paths it matches are filed under its template, stored ones too',
    scopes: FULL,
    access: SOURCE,
    status: 201,
    errors: [403, 404, 409],
    description:
      'Extension (docs/statistics.md "Rules"). `template` in any spelling (`/products/:slug` is stored as `/products/{slug}`); one that does not begin with `/`, ' +
      'has unbalanced braces or repeats a parameter name is a 400; one matching the same paths as an existing rule is a 409 naming it. ' +
      'Entries already stored move to it in the background, and the statistics they feed with them.',
    schemas: ['params', 'body', 'response'],
  },
  deleteRouteRule: {
    method: 'DELETE',
    path: '/routes/:trafficSourceId/rules/:ruleId',
    tag: 'statistics',
    summary: 'Remove a route rule: its entries go back to what inference (or their client) gives them',
    scopes: FULL,
    access: SOURCE,
    status: 204,
    errors: [403, 404],
    schemas: ['params'],
  },
  suggestRoutes: {
    method: 'GET',
    path: '/routes/:trafficSourceId/suggestions',
    tag: 'statistics',
    summary: 'Rules worth adding: sibling constants under one parent, with their evidence',
    scopes: READ,
    access: SOURCE,
    status: 200,
    errors: [403, 404],
    schemas: ['params', 'response'],
  },
  inferApiContract: {
    method: 'GET',
    path: '/api-contract/:trafficSourceId/openapi',
    tag: 'api-contract',
    summary: 'An OpenAPI 3.1 document inferred from the stored traffic of a source',
    scopes: READ,
    access: SOURCE,
    status: 200,
    errors: [403, 404],
    description:
      'Extension (docs/api-contract.md). One path per route template, one operation per method, schemas merged over every stored exchange in the window ' +
      '(`since`/`until`: durations back from now or ISO 8601 times; default all stored), `route` (repeatable) to keep some routes. Bodies never leave the daemon.',
    schemas: ['params', 'query', 'response'],
  },
  checkApiContract: {
    method: 'POST',
    path: '/api-contract/:trafficSourceId/check',
    tag: 'api-contract',
    summary: 'Check stored exchanges against an OpenAPI 3.0 or 3.1 document',
    scopes: READ,
    access: SOURCE,
    status: 200,
    errors: [403, 404],
    maxBody: 8 * 1024 * 1024,
    description:
      'Extension (docs/api-contract.md). `spec`: the document as JSON, with references to other files already bundled in. Answers, per operation, the exchanges ' +
      'that conform, and each violation (undocumented path, method or status; a body, query parameter or required header against its schema) with its JSON pointer, ' +
      'the rule broken and up to `maxExamples` entry ids. A spec that is not OpenAPI 3.0/3.1 or whose schemas do not compile is a 400 naming `spec`.',
    schemas: ['params', 'body', 'response'],
  },
  listPathnames: {
    method: 'GET',
    path: '/pathnames/:trafficSourceId',
    tag: 'http-traffic',
    summary: 'Pathnames seen for a traffic source',
    scopes: READ,
    access: SOURCE,
    status: 200,
    errors: [403, 404],
    schemas: ['params', 'query', 'response'],
  },
  composeBatch: {
    method: 'POST',
    path: CAPTURE_PATHS.composeBatch,
    tag: 'http-traffic',
    summary: 'Compose up to 1,000 HTTP traffic records in one transaction',
    scopes: INGEST,
    access: SOURCE,
    status: 201,
    errors: [403, 404, 413],
    maxBody: 16 * 1024 * 1024,
    description:
      "Each item is a compose body (4.5) whose trafficSourceId equals the path's. All items are stored in one transaction, or none: " +
      'a 400 names every invalid item by index (issues[].path such as `3.method`). 201 answers `{ids}`, the created entry ids in input order.',
    schemas: ['params', 'body', 'response'],
  },
  listWebhookDeliveries: {
    method: 'GET',
    path: '/webhooks/:webhookId/deliveries',
    tag: 'webhooks',
    summary: "Attempts to deliver a webhook's messages, newest first",
    scopes: READ,
    access: WEBHOOK,
    status: 200,
    errors: [403, 404],
    schemas: ['params', 'query', 'response'],
  },
  testWebhook: {
    method: 'POST',
    path: '/webhooks/:webhookId/test',
    tag: 'webhooks',
    summary: 'Send a test message to a webhook now',
    scopes: FULL,
    access: WEBHOOK,
    status: 200,
    errors: [403, 404],
    description:
      'Sends once, without retries, and answers 200 with the attempt whether or not the receiver accepted it.',
    schemas: ['params', 'response'],
  },
  streamTraffic: {
    method: 'GET',
    path: '/http-traffic/:trafficSourceId/stream',
    tag: 'http-traffic',
    summary: 'Follow new HTTP traffic as Server-Sent Events',
    scopes: READ,
    access: SOURCE,
    status: 200,
    errors: [403, 404],
    description:
      "The list's filters and `q` (docs/filter-language.md). Events: `ready` (`{cursor}`), then one unnamed event per entry, oldest first, " +
      'whose `id` is the entry id; `Last-Event-ID` (or `after`) replays every matching entry stored after that id before live ones. ' +
      '`: heartbeat` comments every 15 s; `overflow` (`{cursor}`) when the client fell too far behind, after which the server closes.',
    schemas: ['params', 'query', 'events'],
  },
} as const satisfies Record<string, EndpointRoute>;
