import { z } from 'zod';
import { contractRoutes, type Access, type EndpointRoute } from './contract-routes.js';
import { CreateCoreLog, CoreLog } from './schemas/core-log.js';
import { Health, Me, PasswordChange, TokenRequest, TokenResponse } from './schemas/auth.js';
import { PageQuery, paginated } from './schemas/common.js';
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
import { MetricsQuery } from './schemas/metrics.js';
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

/**
 * One endpoint of the API. The daemon mounts it, the client calls it and the OpenAPI document
 * describes it, all from this one object, so no part of the interface is written twice.
 */
export interface Endpoint extends EndpointRoute {
  readonly params?: z.ZodType;
  readonly query?: z.ZodType;
  readonly body?: z.ZodType;
  /** `null` for an empty (204) answer, and for an event stream (see `events`). */
  readonly response: z.ZodType | null;
  /** Marks a `text/event-stream` answer: the schema of each event's data. */
  readonly events?: z.ZodType;
}

/** An open endpoint (`scopes: null`) is `access: OPEN`, and only an open one. */
type Consistent<E extends Endpoint> = E['scopes'] extends null
  ? { readonly access: { readonly kind: 'open' } }
  : { readonly access: Exclude<Access, { readonly kind: 'open' }> };

const endpoint = <const E extends Endpoint>(e: E & Consistent<E>): E => e;

export const contract = {
  health: endpoint({
    ...contractRoutes.health,
    response: Health,
  }),
  openapi: endpoint({
    ...contractRoutes.openapi,
    response: z.record(z.string(), z.unknown()),
  }),
  createToken: endpoint({
    ...contractRoutes.createToken,
    body: TokenRequest,
    response: TokenResponse,
  }),
  revokeOwnToken: endpoint({
    ...contractRoutes.revokeOwnToken,
    response: null,
  }),
  changePassword: endpoint({
    ...contractRoutes.changePassword,
    body: PasswordChange,
    response: null,
  }),
  me: endpoint({
    ...contractRoutes.me,
    response: Me,
  }),
  listTrafficSources: endpoint({
    ...contractRoutes.listTrafficSources,
    query: PageQuery,
    response: paginated(TrafficSource),
  }),
  createTrafficSource: endpoint({
    ...contractRoutes.createTrafficSource,
    body: CreateTrafficSource,
    response: TrafficSource,
  }),
  updateTrafficSource: endpoint({
    ...contractRoutes.updateTrafficSource,
    params: TrafficSourceParams,
    body: UpdateTrafficSource,
    response: TrafficSource,
  }),
  deleteTrafficSource: endpoint({
    ...contractRoutes.deleteTrafficSource,
    params: TrafficSourceParams,
    response: null,
  }),
  listCoreLogs: endpoint({
    ...contractRoutes.listCoreLogs,
    params: TrafficSourceParams,
    query: PageQuery,
    response: paginated(CoreLog).extend({ statusCode: z.literal(200) }),
  }),
  createCoreLog: endpoint({
    ...contractRoutes.createCoreLog,
    params: TrafficSourceParams,
    body: CreateCoreLog,
    response: z.object({ statusCode: z.literal(201), data: CoreLog }),
  }),
  listWebhooks: endpoint({
    ...contractRoutes.listWebhooks,
    params: TrafficSourceParams,
    query: PageQuery,
    response: paginated(Webhook),
  }),
  createWebhook: endpoint({
    ...contractRoutes.createWebhook,
    params: TrafficSourceParams,
    body: CreateWebhook,
    response: CreatedWebhook,
  }),
  deleteWebhook: endpoint({
    ...contractRoutes.deleteWebhook,
    params: WebhookParams,
    response: null,
  }),
  composeRecord: endpoint({
    ...contractRoutes.composeRecord,
    params: TrafficSourceParams,
    body: ComposeRecord,
    response: HttpTrafficRecord,
  }),
  ingestLog: endpoint({
    ...contractRoutes.ingestLog,
    body: IngestLog,
    response: HttpTrafficRecord,
  }),
  otlpTraces: endpoint({
    ...contractRoutes.otlpTraces,
    body: OtlpTraceRequest,
    response: OtlpTraceResponse,
  }),
  listTraffic: endpoint({
    ...contractRoutes.listTraffic,
    params: TrafficSourceParams,
    query: TrafficListQuery,
    response: paginated(HttpTraffic),
  }),
  exportHar: endpoint({
    ...contractRoutes.exportHar,
    params: TrafficSourceParams,
    query: TrafficExportQuery,
    response: HarDocument,
  }),
  getTraffic: endpoint({
    ...contractRoutes.getTraffic,
    params: TrafficEntryParams,
    response: HttpTrafficRecord,
  }),
  listDomains: endpoint({
    ...contractRoutes.listDomains,
    params: TrafficSourceParams,
    query: PageQuery,
    response: paginated(NamedValue),
  }),
  getStats: endpoint({
    ...contractRoutes.getStats,
    params: TrafficSourceParams,
    query: StatsQuery,
    response: StatsAnswer,
  }),
  listRoutes: endpoint({
    ...contractRoutes.listRoutes,
    params: TrafficSourceParams,
    query: PageQuery,
    response: paginated(RouteSummary),
  }),
  getMetrics: endpoint({
    ...contractRoutes.getMetrics,
    query: MetricsQuery,
    response: z.string(),
  }),
  listAlertRules: endpoint({
    ...contractRoutes.listAlertRules,
    params: TrafficSourceParams,
    query: PageQuery,
    response: paginated(AlertRule),
  }),
  createAlertRule: endpoint({
    ...contractRoutes.createAlertRule,
    params: TrafficSourceParams,
    body: CreateAlertRule,
    response: AlertRule,
  }),
  listAlertHistory: endpoint({
    ...contractRoutes.listAlertHistory,
    params: TrafficSourceParams,
    query: PageQuery,
    response: paginated(AlertEvent),
  }),
  deleteAlertRule: endpoint({
    ...contractRoutes.deleteAlertRule,
    params: AlertRuleParams,
    response: null,
  }),
  testAlertRule: endpoint({
    ...contractRoutes.testAlertRule,
    params: AlertRuleParams,
    response: AlertTestResult,
  }),
  listRouteRules: endpoint({
    ...contractRoutes.listRouteRules,
    params: TrafficSourceParams,
    query: PageQuery,
    response: paginated(RouteRule),
  }),
  createRouteRule: endpoint({
    ...contractRoutes.createRouteRule,
    params: TrafficSourceParams,
    body: CreateRouteRule,
    response: RouteRule,
  }),
  deleteRouteRule: endpoint({
    ...contractRoutes.deleteRouteRule,
    params: RouteRuleParams,
    response: null,
  }),
  suggestRoutes: endpoint({
    ...contractRoutes.suggestRoutes,
    params: TrafficSourceParams,
    response: RouteSuggestions,
  }),
  inferApiContract: endpoint({
    ...contractRoutes.inferApiContract,
    params: TrafficSourceParams,
    query: ApiInferQuery,
    response: OpenApiDocument,
  }),
  checkApiContract: endpoint({
    ...contractRoutes.checkApiContract,
    params: TrafficSourceParams,
    body: ApiCheckBody,
    response: ApiCheckAnswer,
  }),
  listPathnames: endpoint({
    ...contractRoutes.listPathnames,
    params: TrafficSourceParams,
    query: PathnameQuery,
    response: paginated(Pathname),
  }),
  composeBatch: endpoint({
    ...contractRoutes.composeBatch,
    params: TrafficSourceParams,
    body: z
      .array(ComposeRecord, { message: 'the body must be a JSON array of compose bodies' })
      .min(1, 'a batch holds at least 1 record')
      .max(BATCH_LIMIT, `a batch holds at most ${BATCH_LIMIT} records`),
    response: z.object({ ids: z.array(z.uuid()) }),
  }),
  listWebhookDeliveries: endpoint({
    ...contractRoutes.listWebhookDeliveries,
    params: WebhookParams,
    query: PageQuery,
    response: paginated(WebhookAttempt),
  }),
  testWebhook: endpoint({
    ...contractRoutes.testWebhook,
    params: WebhookParams,
    response: WebhookTestResult,
  }),
  streamTraffic: endpoint({
    ...contractRoutes.streamTraffic,
    params: TrafficSourceParams,
    query: TrafficStreamQuery,
    response: null,
    events: HttpTraffic,
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
