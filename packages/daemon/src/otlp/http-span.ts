import { isRecordedMethod, queryMap } from '@tapline/shared/lean';
import type { RecordBody } from '@tapline/shared';
import type { OtlpSpan } from './request.js';
import { attributeMap } from './request.js';

/** SPAN_KIND_SERVER, as protobuf (2) and as OTLP/JSON may spell it. */
const isServerKind = (kind: OtlpSpan['kind']) => kind === 2 || kind === 'SPAN_KIND_SERVER';

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What one server span of an HTTP request says, or why it cannot be a record. */
export type HttpSpan =
  | { readonly kind: 'record'; readonly body: RecordBody }
  /** Not an HTTP server span, or a method the interface does not record (HEAD, OPTIONS…): ignored. */
  | { readonly kind: 'ignored' }
  | { readonly kind: 'rejected'; readonly reason: string };

/** The first attribute present among names, current semantic conventions first, then older ones. */
function pick(attributes: Map<string, unknown>, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = text(attributes.get(name));
    if (value !== undefined) return value;
  }
  return undefined;
}

function withPort(host: string | undefined, port: string | undefined): string | undefined {
  if (!host) return undefined;
  return port && !host.includes(':') ? `${host}:${port}` : host;
}

/** `http.request.header.<name>` (and `…response…`) attributes, whose values are string arrays. */
function headers(attributes: Map<string, unknown>, prefix: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of attributes) {
    if (!key.startsWith(prefix)) continue;
    const values = (Array.isArray(value) ? value : [value]).map(text).filter((v): v is string => v !== undefined);
    if (values.length > 0) out[key.slice(prefix.length)] = values.length === 1 ? (values[0] ?? '') : values;
  }
  return out;
}

/**
 * A server span of an HTTP request as a compose body (docs/opentelemetry.md lists the attributes
 * read). Both the current HTTP semantic conventions and the older ones are read, since SDKs still
 * emit the old ones by default (Node's HTTP instrumentation until `OTEL_SEMCONV_STABILITY_OPT_IN=http`).
 */
export function httpSpan(span: OtlpSpan): HttpSpan {
  const a = attributeMap(span.attributes);
  const method = pick(a, 'http.request.method', 'http.method');
  if (!isServerKind(span.kind) || method === undefined) return { kind: 'ignored' };
  if (!isRecordedMethod(method)) return { kind: 'ignored' };
  const status = Number(pick(a, 'http.response.status_code', 'http.status_code'));
  if (!Number.isInteger(status))
    return { kind: 'rejected', reason: `span ${span.spanId ?? '?'} has no http.response.status_code` };

  const full = pick(a, 'url.full', 'http.url');
  const fullUrl = full && URL.canParse(full) ? new URL(full) : undefined;
  const scheme = (pick(a, 'url.scheme', 'http.scheme') ?? fullUrl?.protocol.replace(':', '') ?? 'http').toLowerCase();
  const host =
    withPort(pick(a, 'server.address'), pick(a, 'server.port')) ??
    pick(a, 'http.host') ??
    withPort(pick(a, 'net.host.name'), pick(a, 'net.host.port')) ??
    fullUrl?.host ??
    'localhost';
  const base = `${scheme}://${host}`;
  const target =
    pick(a, 'url.path') !== undefined
      ? `${pick(a, 'url.path')}${queryPart(pick(a, 'url.query'))}`
      : (pick(a, 'http.target') ?? (fullUrl ? fullUrl.pathname + fullUrl.search : '/'));
  if (!URL.canParse(target, base))
    return { kind: 'rejected', reason: `span ${span.spanId ?? '?'} has an unusable URL: ${base}${target}` };
  const url = new URL(target, base);

  const requestHeaders = headers(a, 'http.request.header.');
  const agent = pick(a, 'user_agent.original', 'http.user_agent');
  if (agent && requestHeaders['user-agent'] === undefined) requestHeaders['user-agent'] = agent;
  const userId = pick(a, 'enduser.id', 'user.id');
  const route = pick(a, 'http.route');
  const start = span.startTimeUnixNano ?? 0n;
  const end = span.endTimeUnixNano ?? start;
  const body: RecordBody = {
    domainUrl: base,
    pathnameUrl: url.pathname,
    status,
    protocol: scheme === 'https' ? 'HTTPS' : 'HTTP',
    method: method.toUpperCase(),
    elapsedTime: end > start ? Number(end - start) / 1e6 : 0,
    requestHeaders,
    requestBody: null,
    queryParams: queryMap(url.searchParams),
    responseHeaders: headers(a, 'http.response.header.'),
    responseBody: null,
    ...(userId && UUID.test(userId) ? { trafficUserId: userId } : {}),
    ...(start > 0n ? { startedAt: new Date(Number(start / 1_000_000n)).toISOString() } : {}),
    ...(route?.startsWith('/') ? { route } : {}),
  };
  return { kind: 'record', body };
}

const queryPart = (query: string | undefined) => (query ? `?${query.replace(/^\?/, '')}` : '');
