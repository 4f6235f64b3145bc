import { z } from 'zod';
import { CAPTURE_PATHS, PAGE_START_PATHS } from './paths.js';
import { CreateCoreLog, CoreLog } from './schemas/core-log.js';
import { Health, Me, PasswordChange, TokenRequest, TokenResponse } from './schemas/auth.js';
import { PageQuery, paginated, type Scope } from './schemas/common.js';
import {
  BATCH_LIMIT,
  ComposeRecord,
  HttpTraffic,
  HttpTrafficRecord,
  NamedValue,
  Pathname,
  PathnameQuery,
  TrafficEntryParams,
  TrafficExportQuery,
  TrafficListQuery,
  TrafficStreamQuery,
} from './schemas/http-traffic.js';
import { HarDocument, OtlpTraceRequest, OtlpTraceResponse } from './schemas/formats.js';
import { ApiCheckAnswer, ApiCheckBody, ApiInferQuery, OpenApiDocument } from './schemas/api-contract.js';
import { IngestLog } from './schemas/ingest-log.js';
import { MetricsQuery, PROMETHEUS_TEXT } from './schemas/metrics.js';
import { AlertEvent, AlertRule, AlertRuleParams, AlertTestResult, CreateAlertRule } from './schemas/alert.js';
import { CreateRouteRule, RouteRule, RouteRuleParams, RouteSuggestions } from './schemas/route-rules.js';
import { RouteSummary, StatsAnswer, StatsQuery } from './schemas/stats.js';
import {
  CreateTrafficSource,
  TrafficSource,
  TrafficSourceParams,
  UpdateTrafficSource,
} from './schemas/traffic-source.js';
import {
  CreateWebhook,
  CreatedWebhook,
  Webhook,
  WebhookAttempt,
  WebhookParams,
  WebhookTestResult,
} from './schemas/webhook.js';

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
 * One endpoint of the API. The daemon mounts it, the client calls it and the OpenAPI document
 * describes it, all from this one object, so no part of the interface is written twice.
 */
export interface Endpoint {
  readonly method: HttpVerb;
  /** Express-style path: `/webhooks/:webhookId`. */
  readonly path: string;
  readonly summary: string;
  readonly tag: string;
  /** Token scopes allowed to call it; `null` marks an open endpoint that needs no token. */
  readonly scopes: readonly Scope[] | null;
  /** What the daemon checks, and loads, before the handler runs. */
  readonly access: Access;
  readonly params?: z.ZodType;
  readonly query?: z.ZodType;
  readonly body?: z.ZodType;
  readonly status: 200 | 201 | 204;
  /** `null` for an empty (204) answer, and for an event stream (see `events`). */
  readonly response: z.ZodType | null;
  /** Marks a `text/event-stream` answer: the schema of each event's data. */
  readonly events?: z.ZodType;
  /** Documented error statuses besides the 400/401 every authenticated endpoint may give. */
  readonly errors: readonly number[];
  /** Largest accepted body in bytes; the daemon's `--max-body` applies when absent. */
  readonly maxBody?: number;
  /** Where the spec says more than the summary can. */
  readonly description?: string;
  /** Media types of the body and the answer when not only JSON (OTLP answers in the request's). */
  readonly media?: readonly string[];
}

/** An open endpoint (`scopes: null`) is `access: OPEN`, and only an open one. */
type Consistent<E extends Endpoint> = E['scopes'] extends null
  ? { readonly access: { readonly kind: 'open' } }
  : { readonly access: Exclude<Access, { readonly kind: 'open' }> };

const endpoint = <const E extends Endpoint>(e: E & Consistent<E>): E => e;

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

export const contract = {
  health: endpoint({
    method: 'GET',
    path: '/healthz',
    tag: 'meta',
    summary: 'Daemon health and version',
    scopes: null,
    access: OPEN,
    status: 200,
    response: Health,
    errors: [],
  }),
  openapi: endpoint({
    method: 'GET',
    path: '/openapi.json',
    tag: 'meta',
    summary: 'This OpenAPI 3.1 document',
    scopes: null,
    access: OPEN,
    status: 200,
    response: z.record(z.string(), z.unknown()),
    errors: [],
  }),
  createToken: endpoint({
    method: 'POST',
    path: '/auth/token',
    tag: 'auth',
    summary: 'Exchange email and password for a token',
    scopes: null,
    access: OPEN,
    body: TokenRequest,
    status: 201,
    response: TokenResponse,
    errors: [401, 429],
  }),
  revokeOwnToken: endpoint({
    method: 'DELETE',
    path: '/auth/token',
    tag: 'auth',
    summary: 'Revoke the token that makes this request (log out)',
    scopes: FULL,
    access: TOKEN,
    status: 204,
    response: null,
    errors: [403],
  }),
  changePassword: endpoint({
    method: 'POST',
    path: '/auth/password',
    tag: 'auth',
    summary: "Change the password of the token's own user",
    scopes: FULL,
    access: ACCOUNT,
    body: PasswordChange,
    status: 204,
    response: null,
    errors: [403, 429],
    description:
      'currentPassword is required once the user has a password. Tokens already issued stay valid. A source-restricted token may not call it.',
  }),
  me: endpoint({
    method: 'GET',
    path: PAGE_START_PATHS.me,
    tag: 'auth',
    summary: "The token's user, scope and source restriction",
    scopes: ALL,
    access: TOKEN,
    status: 200,
    response: Me,
    errors: [],
  }),
  listTrafficSources: endpoint({
    method: 'GET',
    path: CAPTURE_PATHS.listTrafficSources,
    tag: 'traffic-source',
    summary: "List the user's traffic sources (4.1)",
    scopes: ALL,
    access: TOKEN,
    query: PageQuery,
    status: 200,
    response: paginated(TrafficSource),
    errors: [],
  }),
  createTrafficSource: endpoint({
    method: 'POST',
    path: '/traffic-source',
    tag: 'traffic-source',
    summary: 'Create a traffic source',
    scopes: FULL,
    access: ACCOUNT,
    body: CreateTrafficSource,
    status: 201,
    response: TrafficSource,
    errors: [403, 409],
  }),
  updateTrafficSource: endpoint({
    method: 'PATCH',
    path: '/traffic-source/:trafficSourceId',
    tag: 'traffic-source',
    summary: 'Rename a traffic source or change its domain',
    scopes: FULL,
    access: SOURCE,
    params: TrafficSourceParams,
    body: UpdateTrafficSource,
    status: 200,
    response: TrafficSource,
    errors: [403, 404, 409],
  }),
  deleteTrafficSource: endpoint({
    method: 'DELETE',
    path: '/traffic-source/:trafficSourceId',
    tag: 'traffic-source',
    summary: 'Delete a traffic source and all of its data',
    scopes: FULL,
    access: SOURCE,
    params: TrafficSourceParams,
    status: 204,
    response: null,
    errors: [403, 404],
  }),
  listCoreLogs: endpoint({
    method: 'GET',
    path: '/core-log/:trafficSourceId',
    tag: 'core-log',
    summary: 'List core logs of a traffic source (4.2)',
    scopes: READ,
    access: SOURCE,
    params: TrafficSourceParams,
    query: PageQuery,
    status: 200,
    response: paginated(CoreLog).extend({ statusCode: z.literal(200) }),
    errors: [403, 404],
  }),
  createCoreLog: endpoint({
    method: 'POST',
    path: CAPTURE_PATHS.createCoreLog,
    tag: 'core-log',
    summary: 'Write a core log',
    scopes: INGEST,
    access: SOURCE,
    params: TrafficSourceParams,
    body: CreateCoreLog,
    status: 201,
    response: z.object({ statusCode: z.literal(201), data: CoreLog }),
    errors: [403, 404],
  }),
  listWebhooks: endpoint({
    method: 'GET',
    path: '/webhooks/:trafficSourceId',
    tag: 'webhooks',
    summary: 'List webhooks of a traffic source (4.3)',
    scopes: READ,
    access: SOURCE,
    params: TrafficSourceParams,
    query: PageQuery,
    status: 200,
    response: paginated(Webhook),
    errors: [403, 404],
  }),
  createWebhook: endpoint({
    method: 'POST',
    path: '/webhooks/:trafficSourceId',
    tag: 'webhooks',
    summary: 'Add a webhook to a traffic source',
    scopes: FULL,
    access: SOURCE,
    params: TrafficSourceParams,
    body: CreateWebhook,
    status: 201,
    response: CreatedWebhook,
    errors: [403, 404, 409],
  }),
  deleteWebhook: endpoint({
    method: 'DELETE',
    path: '/webhooks/:webhookId',
    tag: 'webhooks',
    summary: 'Delete a webhook (4.4)',
    scopes: FULL,
    access: WEBHOOK,
    params: WebhookParams,
    status: 204,
    response: null,
    errors: [403, 404],
  }),
  composeRecord: endpoint({
    method: 'POST',
    path: '/http-traffic-record/:trafficSourceId',
    tag: 'http-traffic',
    summary: 'Compose an HTTP traffic record (4.5)',
    scopes: INGEST,
    access: SOURCE,
    params: TrafficSourceParams,
    body: ComposeRecord,
    status: 201,
    response: HttpTrafficRecord,
    errors: [403, 404],
  }),
  ingestLog: endpoint({
    method: 'POST',
    path: '/ingest-log',
    tag: 'http-traffic',
    summary: 'Compose a record as the Arkyn SDK (@arkyn/server) sends it',
    scopes: INGEST,
    access: BODY_SOURCE,
    body: IngestLog,
    status: 201,
    response: HttpTrafficRecord,
    errors: [403, 404, 413],
    description:
      'The compose body (4.5) with requestHeaders, queryParams, responseHeaders, requestBody and responseBody JSON-encoded as strings; ' +
      "the source is the body's trafficSourceId. Each string is decoded, then every compose rule, redaction included, applies (docs/arkyn.md).",
  }),
  otlpTraces: endpoint({
    method: 'POST',
    path: '/v1/traces',
    tag: 'otlp',
    summary: 'OTLP/HTTP trace export: server spans of HTTP requests become entries',
    scopes: INGEST,
    access: TOKEN,
    body: OtlpTraceRequest,
    status: 200,
    response: OtlpTraceResponse,
    errors: [403, 404, 413, 503],
    media: ['application/x-protobuf', 'application/json'],
    description:
      "OTLP/HTTP (protobuf or JSON, gzip accepted). The source: the `x-tapline-source` header (name or id), else the token's source " +
      "restriction, else the source named as the resource's `service.name`. Exception events become core logs (docs/opentelemetry.md). " +
      'Errors are `google.rpc.Status` for protobuf requests and the usual error body for JSON ones.',
  }),
  listTraffic: endpoint({
    method: 'GET',
    path: PAGE_START_PATHS.listTraffic,
    tag: 'http-traffic',
    summary: 'List HTTP traffic of a traffic source (4.6)',
    scopes: READ,
    access: SOURCE,
    params: TrafficSourceParams,
    query: TrafficListQuery,
    status: 200,
    response: paginated(HttpTraffic),
    errors: [403, 404],
  }),
  exportHar: endpoint({
    method: 'GET',
    path: '/http-traffic/:trafficSourceId/export.har',
    tag: 'http-traffic',
    summary: 'Every matching entry as a HAR 1.2 document, streamed',
    scopes: READ,
    access: SOURCE,
    params: TrafficSourceParams,
    query: TrafficExportQuery,
    status: 200,
    response: HarDocument,
    errors: [403, 404],
    description:
      "The list's filters and `q`; every match, oldest first, with headers, query and bodies as stored (redacted). Written as it is read, " +
      'page by page, so any number of entries streams in bounded memory. Opens in browser devtools and HAR viewers.',
  }),
  getTraffic: endpoint({
    method: 'GET',
    path: '/http-traffic/:trafficSourceId/:id',
    tag: 'http-traffic',
    summary: 'One whole HTTP traffic record',
    scopes: READ,
    access: SOURCE,
    params: TrafficEntryParams,
    status: 200,
    response: HttpTrafficRecord,
    errors: [403, 404],
  }),
  listDomains: endpoint({
    method: 'GET',
    path: '/domains/:trafficSourceId',
    tag: 'http-traffic',
    summary: 'Domains seen for a traffic source',
    scopes: READ,
    access: SOURCE,
    params: TrafficSourceParams,
    query: PageQuery,
    status: 200,
    response: paginated(NamedValue),
    errors: [403, 404],
  }),
  getStats: endpoint({
    method: 'GET',
    path: '/stats/:trafficSourceId',
    tag: 'statistics',
    summary: 'Per-route request counts, error counts, latency percentiles and bytes over a window',
    scopes: READ,
    access: SOURCE,
    params: TrafficSourceParams,
    query: StatsQuery,
    status: 200,
    response: StatsAnswer,
    errors: [403, 404],
    description:
      'Extension (docs/statistics.md). `since`/`until`: durations back from now or ISO 8601 times (default the last hour); `by`: route,method (default), route, method or status; ' +
      '`where`: the filter language on route, method, status (by class), level and domain; `compare`: previous or a duration back; `series=1` with `bucket`.',
  }),
  listRoutes: endpoint({
    method: 'GET',
    path: '/routes/:trafficSourceId',
    tag: 'statistics',
    summary: 'Route templates of a traffic source, with their origin and stored entries',
    scopes: READ,
    access: SOURCE,
    params: TrafficSourceParams,
    query: PageQuery,
    status: 200,
    response: paginated(RouteSummary),
    errors: [403, 404],
  }),
  getMetrics: endpoint({
    method: 'GET',
    path: '/metrics',
    tag: 'statistics',
    summary: "Prometheus metrics: per-route request counters and latency histograms, and the daemon's health",
    scopes: READ,
    access: NAMED_SOURCE,
    query: MetricsQuery,
    status: 200,
    response: z.string(),
    errors: [403, 404, 503],
    media: [PROMETHEUS_TEXT],
    description:
      'Extension (docs/statistics.md, "Prometheus"). The Prometheus text format. Without `source`, the series of every source the token may see ' +
      '(a token restricted to one source: that one); with `source`, that source alone (404, 403 as every source route). Request counters and ' +
      "latency histograms count what this daemon committed since it started; the health gauges are the daemon's and its database's.",
  }),
  listAlertRules: endpoint({
    method: 'GET',
    path: '/alerts/:trafficSourceId',
    tag: 'alerts',
    summary: 'Alert rules of a traffic source, with their state',
    scopes: READ,
    access: SOURCE,
    params: TrafficSourceParams,
    query: PageQuery,
    status: 200,
    response: paginated(AlertRule),
    errors: [403, 404],
    description:
      'Extension (docs/alerts.md). `webhookIds` lists the webhooks that still exist: empty means the rule has no target.',
  }),
  createAlertRule: endpoint({
    method: 'POST',
    path: '/alerts/:trafficSourceId',
    tag: 'alerts',
    summary: 'Add an alert rule on the route numbers',
    scopes: FULL,
    access: SOURCE,
    params: TrafficSourceParams,
    body: CreateAlertRule,
    status: 201,
    response: AlertRule,
    errors: [403, 404],
    description:
      'Extension (docs/alerts.md). `when`: `p50|p90|p95|p99 > 800ms`, `error_rate > 5%`, `client_error_rate > 20%`, `requests < 10/min`, `p95 > 2x baseline`. ' +
      "`for` and `window` from 1m to 24h; every webhook must belong to the same source (another source: 404; another user's: 403), and nothing is created otherwise.",
  }),
  listAlertHistory: endpoint({
    method: 'GET',
    path: '/alerts/:trafficSourceId/history',
    tag: 'alerts',
    summary: "Transitions of a source's alert rules, newest first",
    scopes: READ,
    access: SOURCE,
    params: TrafficSourceParams,
    query: PageQuery,
    status: 200,
    response: paginated(AlertEvent),
    errors: [403, 404],
  }),
  deleteAlertRule: endpoint({
    method: 'DELETE',
    path: '/alerts/rules/:ruleId',
    tag: 'alerts',
    summary: 'Delete an alert rule and its history',
    scopes: FULL,
    access: ALERT_RULE,
    params: AlertRuleParams,
    status: 204,
    response: null,
    errors: [403, 404],
  }),
  testAlertRule: endpoint({
    method: 'POST',
    path: '/alerts/rules/:ruleId/test',
    tag: 'alerts',
    summary: "Queue a sample firing message for each of a rule's webhooks",
    scopes: FULL,
    access: ALERT_RULE,
    params: AlertRuleParams,
    status: 200,
    response: AlertTestResult,
    errors: [403, 404],
    description:
      'Through the outbox, as real alerts: delivered with retries, visible in `GET /webhooks/:webhookId/deliveries`.',
  }),
  listRouteRules: endpoint({
    method: 'GET',
    path: '/routes/:trafficSourceId/rules',
    tag: 'statistics',
    summary: 'Route rules of a traffic source, newest first, with the entries each holds',
    scopes: READ,
    access: SOURCE,
    params: TrafficSourceParams,
    query: PageQuery,
    status: 200,
    response: paginated(RouteRule),
    errors: [403, 404],
  }),
  createRouteRule: endpoint({
    method: 'POST',
    path: '/routes/:trafficSourceId/rules',
    tag: 'statistics',
    summary: 'Add a route rule: paths it matches are filed under its template, stored ones too',
    scopes: FULL,
    access: SOURCE,
    params: TrafficSourceParams,
    body: CreateRouteRule,
    status: 201,
    response: RouteRule,
    errors: [403, 404, 409],
    description:
      'Extension (docs/statistics.md "Rules"). `template` in any spelling (`/products/:slug` is stored as `/products/{slug}`); one that does not begin with `/`, ' +
      'has unbalanced braces or repeats a parameter name is a 400; one matching the same paths as an existing rule is a 409 naming it. ' +
      'Entries already stored move to it in the background, and the statistics they feed with them.',
  }),
  deleteRouteRule: endpoint({
    method: 'DELETE',
    path: '/routes/:trafficSourceId/rules/:ruleId',
    tag: 'statistics',
    summary: 'Remove a route rule: its entries go back to what inference (or their client) gives them',
    scopes: FULL,
    access: SOURCE,
    params: RouteRuleParams,
    status: 204,
    response: null,
    errors: [403, 404],
  }),
  suggestRoutes: endpoint({
    method: 'GET',
    path: '/routes/:trafficSourceId/suggestions',
    tag: 'statistics',
    summary: 'Rules worth adding: sibling constants under one parent, with their evidence',
    scopes: READ,
    access: SOURCE,
    params: TrafficSourceParams,
    status: 200,
    response: RouteSuggestions,
    errors: [403, 404],
  }),
  inferApiContract: endpoint({
    method: 'GET',
    path: '/api-contract/:trafficSourceId/openapi',
    tag: 'api-contract',
    summary: 'An OpenAPI 3.1 document inferred from the stored traffic of a source',
    scopes: READ,
    access: SOURCE,
    params: TrafficSourceParams,
    query: ApiInferQuery,
    status: 200,
    response: OpenApiDocument,
    errors: [403, 404],
    description:
      'Extension (docs/api-contract.md). One path per route template, one operation per method, schemas merged over every stored exchange in the window ' +
      '(`since`/`until`: durations back from now or ISO 8601 times; default all stored), `route` (repeatable) to keep some routes. Bodies never leave the daemon.',
  }),
  checkApiContract: endpoint({
    method: 'POST',
    path: '/api-contract/:trafficSourceId/check',
    tag: 'api-contract',
    summary: 'Check stored exchanges against an OpenAPI 3.0 or 3.1 document',
    scopes: READ,
    access: SOURCE,
    params: TrafficSourceParams,
    body: ApiCheckBody,
    status: 200,
    response: ApiCheckAnswer,
    errors: [403, 404],
    maxBody: 8 * 1024 * 1024,
    description:
      'Extension (docs/api-contract.md). `spec`: the document as JSON, with references to other files already bundled in. Answers, per operation, the exchanges ' +
      'that conform, and each violation (undocumented path, method or status; a body, query parameter or required header against its schema) with its JSON pointer, ' +
      'the rule broken and up to `maxExamples` entry ids. A spec that is not OpenAPI 3.0/3.1 or whose schemas do not compile is a 400 naming `spec`.',
  }),
  listPathnames: endpoint({
    method: 'GET',
    path: '/pathnames/:trafficSourceId',
    tag: 'http-traffic',
    summary: 'Pathnames seen for a traffic source',
    scopes: READ,
    access: SOURCE,
    params: TrafficSourceParams,
    query: PathnameQuery,
    status: 200,
    response: paginated(Pathname),
    errors: [403, 404],
  }),
  composeBatch: endpoint({
    method: 'POST',
    path: CAPTURE_PATHS.composeBatch,
    tag: 'http-traffic',
    summary: 'Compose up to 1,000 HTTP traffic records in one transaction',
    scopes: INGEST,
    access: SOURCE,
    params: TrafficSourceParams,
    body: z
      .array(ComposeRecord, { message: 'the body must be a JSON array of compose bodies' })
      .min(1, 'a batch holds at least 1 record')
      .max(BATCH_LIMIT, `a batch holds at most ${BATCH_LIMIT} records`),
    status: 201,
    response: z.object({ ids: z.array(z.uuid()) }),
    errors: [403, 404, 413],
    maxBody: 16 * 1024 * 1024,
    description:
      "Each item is a compose body (4.5) whose trafficSourceId equals the path's. All items are stored in one transaction, or none: " +
      'a 400 names every invalid item by index (issues[].path such as `3.method`). 201 answers `{ids}`, the created entry ids in input order.',
  }),
  listWebhookDeliveries: endpoint({
    method: 'GET',
    path: '/webhooks/:webhookId/deliveries',
    tag: 'webhooks',
    summary: "Attempts to deliver a webhook's messages, newest first",
    scopes: READ,
    access: WEBHOOK,
    params: WebhookParams,
    query: PageQuery,
    status: 200,
    response: paginated(WebhookAttempt),
    errors: [403, 404],
  }),
  testWebhook: endpoint({
    method: 'POST',
    path: '/webhooks/:webhookId/test',
    tag: 'webhooks',
    summary: 'Send a test message to a webhook now',
    scopes: FULL,
    access: WEBHOOK,
    params: WebhookParams,
    status: 200,
    response: WebhookTestResult,
    errors: [403, 404],
    description:
      'Sends once, without retries, and answers 200 with the attempt whether or not the receiver accepted it.',
  }),
  streamTraffic: endpoint({
    method: 'GET',
    path: '/http-traffic/:trafficSourceId/stream',
    tag: 'http-traffic',
    summary: 'Follow new HTTP traffic as Server-Sent Events',
    scopes: READ,
    access: SOURCE,
    params: TrafficSourceParams,
    query: TrafficStreamQuery,
    status: 200,
    response: null,
    events: HttpTraffic,
    errors: [403, 404],
    description:
      "The list's filters and `q` (docs/filter-language.md). Events: `ready` (`{cursor}`), then one unnamed event per entry, oldest first, " +
      'whose `id` is the entry id; `Last-Event-ID` (or `after`) replays every matching entry stored after that id before live ones. ' +
      '`: heartbeat` comments every 15 s; `overflow` (`{cursor}`) when the client fell too far behind, after which the server closes.',
  }),
} as const;

export type Contract = typeof contract;
export type EndpointName = keyof Contract;
export type Tag = Contract[EndpointName]['tag'];
/** The endpoints of one tag: what one table of the daemon's routes serves. */
export type TaggedEndpoints<T extends Tag> = {
  readonly [N in EndpointName as Contract[N]['tag'] extends T ? N : never]: Contract[N];
};

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;
type In<S> = S extends z.ZodType ? z.input<S> : undefined;

/** What a handler receives (parsed) and what a client sends (unparsed), per endpoint. */
export type ParsedInput<E extends Endpoint> = {
  params: Out<E['params']>;
  query: Out<E['query']>;
  body: Out<E['body']>;
};
export type ClientInput<E extends Endpoint> = (E['params'] extends z.ZodType
  ? { params: In<E['params']> }
  : { params?: undefined }) &
  (E['query'] extends z.ZodType ? { query?: In<E['query']> } : { query?: undefined }) &
  (E['body'] extends z.ZodType ? { body: In<E['body']> } : { body?: undefined });
export type ResponseOf<E extends Endpoint> = E['response'] extends z.ZodType ? z.output<E['response']> : undefined;

export { buildPath, scalarText } from './paths.js';
