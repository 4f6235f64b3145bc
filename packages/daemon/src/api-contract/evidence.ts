import type { HttpTrafficRecord, JsonValue } from '@tapline/shared';
import { jsonLongerThan } from './json-length.js';
import type { ContractExchange } from './records.js';
import { emptyShape, observe, type Shape } from './shape.js';

/**
 * What the exchanges of one operation (a route template and a method) had, gathered one record at
 * a time; its size is bounded by the shapes', never by the number of exchanges.
 */
export interface Evidence {
  count: number;
  firstSeen: string;
  lastSeen: string;
  /** Values of the template's parameters, by position. */
  pathParams: Shape[];
  query: Map<string, Shape>;
  headers: Map<string, Shape>;
  authorized: number;
  requestBodies: Map<string, Body>;
  withRequestBody: number;
  responses: Map<number, { count: number; bodies: Map<string, Body> }>;
}

interface Body {
  readonly shape: Shape;
  /** The first stored body that is small enough to show (stored bodies are already redacted). */
  example: JsonValue | undefined;
}

/** Largest example kept, as JSON text: a document is read by people. */
const EXAMPLE_BYTES = 1024;

/**
 * Request headers every client sends or a proxy adds, which say nothing about this API; the
 * Authorization header becomes the security scheme instead of a parameter (its value is never copied).
 */
const STANDARD_HEADERS = new Set([
  'accept',
  'accept-charset',
  'accept-encoding',
  'accept-language',
  'authorization',
  'cache-control',
  'connection',
  'content-encoding',
  'content-length',
  'content-type',
  'cookie',
  'dnt',
  'expect',
  'forwarded',
  'host',
  'if-match',
  'if-modified-since',
  'if-none-match',
  'if-range',
  'if-unmodified-since',
  'keep-alive',
  'origin',
  'pragma',
  'priority',
  'range',
  'referer',
  'te',
  'traceparent',
  'tracestate',
  'transfer-encoding',
  'upgrade',
  'upgrade-insecure-requests',
  'user-agent',
  'via',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-port',
  'x-forwarded-proto',
  'x-real-ip',
  'x-request-id',
  'baggage',
  'sentry-trace',
  'x-amzn-trace-id',
  'x-tapline-source',
]);

export const newEvidence = (createdAt: string): Evidence => ({
  count: 0,
  firstSeen: createdAt,
  lastSeen: createdAt,
  pathParams: [],
  query: new Map(),
  headers: new Map(),
  authorized: 0,
  requestBodies: new Map(),
  withRequestBody: 0,
  responses: new Map(),
});

type Headers = HttpTrafficRecord['request']['headers'];

function headerOf(headers: Headers, name: string): string | undefined {
  // `for…in`, not entries or keys: read twice for every exchange, and an array per call showed in
  // profiles; a key of another length is not lowercased to be compared.
  for (const key in headers) {
    if (key.length !== name.length || key.toLowerCase() !== name) continue;
    const value = headers[key];
    if (value !== undefined) return Array.isArray(value) ? value.join(', ') : value;
  }
  return undefined;
}

/** A query or path value as the JSON value it spells, so its schema can say integer or boolean. */
export function scalarOf(text: string): JsonValue {
  if (/^-?(?:0|[1-9]\d{0,14})$/.test(text)) return Number(text);
  if (/^-?(?:0|[1-9]\d{0,14})\.\d{1,15}$/.test(text)) return Number(text);
  if (text === 'true' || text === 'false') return text === 'true';
  return text;
}

function observeIn(map: Map<string, Shape>, key: string, value: JsonValue): void {
  let shape = map.get(key);
  if (!shape) map.set(key, (shape = emptyShape()));
  observe(shape, value);
}

/**
 * Content-Type values whose media type is kept, for the daemon's lifetime: an app sends a few, with
 * every exchange. At most KEPT_MEDIA of them, none longer than KEPT_MEDIA_CHARS (a header can be
 * kilobytes long), so what is kept stays under 300 KB whatever the traffic.
 */
const KEPT_MEDIA = 1000;
const KEPT_MEDIA_CHARS = 256;
const declaredMedia = new Map<string, string | undefined>();

/** The media type a Content-Type value names (lowercased, without parameters), or undefined. */
function declaredOf(contentType: string): string | undefined {
  if (declaredMedia.has(contentType)) return declaredMedia.get(contentType);
  const media = contentType.split(';')[0]?.trim().toLowerCase();
  const declared = media && /^[\w.+-]+\/[\w.+-]+$/.test(media) ? media : undefined;
  if (contentType.length > KEPT_MEDIA_CHARS) return declared;
  if (declaredMedia.size >= KEPT_MEDIA) declaredMedia.clear();
  declaredMedia.set(contentType, declared);
  return declared;
}

/** The media type of a body: its Content-Type without parameters, else what the stored value is. */
export function mediaOf(headers: Headers, body: JsonValue): string {
  const contentType = headerOf(headers, 'content-type');
  const declared = contentType === undefined ? undefined : declaredOf(contentType);
  if (declared) return declared;
  return typeof body === 'string' ? 'text/plain' : 'application/json';
}

function observeBody(bodies: Map<string, Body>, media: string, body: JsonValue): void {
  let entry = bodies.get(media);
  if (!entry) bodies.set(media, (entry = { shape: emptyShape(), example: undefined }));
  observe(entry.shape, body);
  if (
    entry.example === undefined &&
    !jsonLongerThan(body, EXAMPLE_BYTES) &&
    JSON.stringify(body).length <= EXAMPLE_BYTES
  )
    entry.example = body;
}

/** Adds one exchange; `pathValues` are the template's parameters as the path filled them (`scalarOf` each). */
export function addExchange(
  evidence: Evidence,
  record: ContractExchange,
  pathValues: readonly JsonValue[] | undefined,
): void {
  evidence.count += 1;
  if (record.createdAt < evidence.firstSeen) evidence.firstSeen = record.createdAt;
  if (record.createdAt > evidence.lastSeen) evidence.lastSeen = record.createdAt;
  // Loops over keys rather than Object.entries, and the set of names only once one is kept: this
  // runs for every exchange, and each array or set made here was garbage a moment later.
  if (pathValues)
    for (let i = 0; i < pathValues.length; i++) observe((evidence.pathParams[i] ??= emptyShape()), pathValues[i] ?? '');
  const { queryParams, headers } = record.request;
  for (const name in queryParams) {
    const value = queryParams[name];
    if (value !== undefined)
      observeIn(evidence.query, name, Array.isArray(value) ? value.map(scalarOf) : scalarOf(value));
  }
  let seen: Set<string> | undefined;
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    const key = name.toLowerCase();
    if (key === 'authorization') evidence.authorized += 1;
    if (STANDARD_HEADERS.has(key) || key.startsWith('sec-') || seen?.has(key)) continue;
    (seen ??= new Set()).add(key);
    observeIn(evidence.headers, key, Array.isArray(value) ? value.join(', ') : value);
  }
  if (record.request.body !== null) {
    evidence.withRequestBody += 1;
    observeBody(evidence.requestBodies, mediaOf(record.request.headers, record.request.body), record.request.body);
  }
  let response = evidence.responses.get(record.status);
  if (!response) evidence.responses.set(record.status, (response = { count: 0, bodies: new Map() }));
  response.count += 1;
  if (record.response.body !== null)
    observeBody(response.bodies, mediaOf(record.response.headers, record.response.body), record.response.body);
}
