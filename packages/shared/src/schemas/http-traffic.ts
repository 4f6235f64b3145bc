import { normalizeTemplate } from '../routes/template.js';
import { z } from 'zod';
import { FilterQuery } from '../filter/query.js';
import { idPrefixRange, MIN_ID_PREFIX } from '../id-prefix.js';
import { isWellFormed, PageQuery, Timestamp, uuidField, wellFormed, wellFormedMessage } from './common.js';
import { HTTP_METHODS, LEVELS, PROTOCOLS } from './traffic-enums.js';
import { MAX_PATHNAME } from '../record-rules.js';

export { HTTP_METHODS, type HttpMethod, type Level, LEVELS, PROTOCOLS } from './traffic-enums.js';
// Beside the `Protocol` schema below, as one name for the value and its type.
export type Protocol = (typeof PROTOCOLS)[number];

/** Accepts any case and yields the upper-case member, so `post` and `POST` store alike. */
const upperEnum = <T extends readonly [string, ...string[]]>(name: string, values: T) =>
  z
    .string({ message: `${name} must be one of ${values.join(', ')}` })
    .transform((v) => v.toUpperCase())
    .pipe(z.enum(values, { message: `${name} must be one of ${values.join(', ')}` }))
    .meta({ type: 'string', enum: [...values], description: 'any case' });

export const Method = upperEnum('method', HTTP_METHODS);
export const Protocol = upperEnum('protocol', PROTOCOLS);
export const LevelParam = upperEnum('level', LEVELS);

const Scalar = z.union([z.string(), z.number(), z.boolean()]);
/** Header and query values: a string or a list of them; numbers and booleans are kept as text. */
const HeaderValue = z.union([Scalar, z.array(Scalar)]).transform((v) => (Array.isArray(v) ? v.map(String) : String(v)));
export const HeaderMap = z.record(z.string(), HeaderValue).superRefine((map, ctx) => {
  for (const [name, value] of Object.entries(map)) {
    const bad = (Array.isArray(value) ? value : [value]).find((text) => !isWellFormed(text));
    if (!isWellFormed(name)) ctx.addIssue({ code: 'custom', path: [], message: wellFormedMessage('a name', name) });
    else if (bad !== undefined) ctx.addIssue({ code: 'custom', path: [name], message: wellFormedMessage(name, bad) });
  }
});
export type HeaderMap = Record<string, string | string[]>;

/** Bodies are an object or null per the spec; any other JSON value is kept as given (docs/decisions.md §5.4). */
export type JsonValue = z.infer<ReturnType<typeof z.json>>;
// A body reaches the schema through JSON.parse (the daemon's body reader, `tapline record`), so it
// is JSON by construction; walking it again with z.json() cost more than storing it did.
const Body = z
  .custom<JsonValue>()
  .nullish()
  .transform((v) => v ?? null)
  .meta({ description: 'any JSON value; an object or null in the interface document' });

/**
 * Extension: when the request started, as the client saw it; it becomes the entry's `createdAt`
 * (docs/decisions.md §17.1). An offset is accepted and normalised to UTC with milliseconds; the
 * daemon, which owns the clock, refuses one more than 5 minutes ahead of it.
 */
const StartedAt = z
  .string({ message: 'startedAt must be an ISO 8601 date-time' })
  .refine(
    (v) => z.iso.datetime({ offset: true }).safeParse(v).success,
    'startedAt must be an ISO 8601 date-time such as 2026-11-21T10:00:00.000Z',
  )
  .transform((v) => new Date(v).toISOString())
  .meta({ type: 'string', format: 'date-time', description: 'extension: when the request started; becomes createdAt' });

export const ComposeRecord = z.object({
  domainUrl: z
    .url({ message: 'domainUrl must be a valid URL', protocol: /^https?$/i })
    .refine(...wellFormed('domainUrl')),
  pathnameUrl: z
    .string({ message: 'pathnameUrl must be a string beginning with /' })
    .refine(...wellFormed('pathnameUrl'))
    .startsWith('/', 'pathnameUrl must begin with /')
    .max(MAX_PATHNAME, `pathnameUrl must be at most ${MAX_PATHNAME} characters`),
  trafficSourceId: uuidField('trafficSourceId'),
  status: z
    .number({ message: 'status must be an integer from 100 to 599' })
    .int('status must be an integer from 100 to 599')
    .min(100, 'status must be an integer from 100 to 599')
    .max(599, 'status must be an integer from 100 to 599'),
  protocol: Protocol,
  method: Method,
  trafficUserId: uuidField('trafficUserId').nullish(),
  elapsedTime: z
    .number({ message: 'elapsedTime must be a non-negative number of milliseconds' })
    .min(0, 'elapsedTime must be a non-negative number of milliseconds')
    .refine(Number.isFinite, 'elapsedTime must be finite'),
  requestHeaders: HeaderMap,
  requestBody: Body,
  queryParams: HeaderMap,
  responseHeaders: HeaderMap,
  responseBody: Body,
  startedAt: StartedAt.optional(),
  /** Extension: the route template the request matched (`/users/:id`), kept for per-route views. */
  route: z
    .string({ message: 'route must be a string beginning with /' })
    .refine(...wellFormed('route'))
    .startsWith('/', 'route must begin with /')
    .max(8192, 'route must be at most 8192 characters')
    .optional(),
});
export type ComposeRecordInput = z.input<typeof ComposeRecord>;
/** The most compose bodies one batch may hold. */
export const BATCH_LIMIT = 1000;
export type ComposeRecord = z.output<typeof ComposeRecord>;

export const HttpTraffic = z.object({
  id: z.uuid(),
  status: z.number().int(),
  method: z.enum(HTTP_METHODS),
  level: z.enum(LEVELS),
  elapsedTime: z.number(),
  trafficUserId: z.uuid().optional(),
  trafficSourceId: z.uuid(),
  domainId: z.uuid(),
  pathnameId: z.uuid(),
  requestId: z.uuid(),
  responseId: z.uuid(),
  createdAt: Timestamp,
  domain: z.string(),
  pathname: z.string(),
  protocol: z.enum(PROTOCOLS),
  /** Extension: the route template, absent when the client sent none. */
  route: z.string().optional(),
});
export type HttpTraffic = z.infer<typeof HttpTraffic>;

const StoredHeaders = z.record(z.string(), z.union([z.string(), z.array(z.string())]));

export const HttpTrafficRecord = z.object({
  id: z.uuid(),
  status: z.number().int(),
  method: z.enum(HTTP_METHODS),
  level: z.enum(LEVELS),
  elapsedTime: z.number(),
  createdAt: Timestamp,
  domain: z.string(),
  pathname: z.string(),
  protocol: z.enum(PROTOCOLS),
  trafficSourceId: z.uuid(),
  trafficUserId: z.uuid().optional(),
  route: z.string().optional(),
  request: z.object({ headers: StoredHeaders, body: z.json().nullable(), queryParams: StoredHeaders }),
  response: z.object({ headers: StoredHeaders, body: z.json().nullable() }),
});
export type HttpTrafficRecord = z.infer<typeof HttpTrafficRecord>;

/** A date-time bound; a bare date means midnight UTC. Normalised to the stored timestamp form. */
const DateBound = (name: string) =>
  z
    .string()
    .refine(
      (v) => z.iso.datetime({ offset: true }).safeParse(v).success || z.iso.date().safeParse(v).success,
      `${name} must be an ISO 8601 date or date-time`,
    )
    .transform((v) => new Date(/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00.000Z` : v).toISOString())
    .meta({
      type: 'string',
      anyOf: [{ format: 'date-time' }, { format: 'date' }],
      // RFC 3339 allows `t`, `z` and a leap second; zod's ISO check does not.
      pattern:
        '^\\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01])(?:T(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z|[+-](?:[01]\\d|2[0-3]):[0-5]\\d))?$',
    });

/** An exact status, or a class such as `5xx`; both become an inclusive range. */
export const StatusFilter = z
  .union([z.string(), z.number()])
  .transform((v, ctx) => {
    const text = String(v).trim().toLowerCase();
    const cls = /^([1-5])xx$/.exec(text);
    if (cls) return { min: Number(cls[1]) * 100, max: Number(cls[1]) * 100 + 99 };
    // Only 100..599 can be stored (compose's rule), so anything else is a bad value, not an empty list.
    if (/^[1-5]\d{2}$/.test(text)) return { min: Number(text), max: Number(text) };
    ctx.addIssue({ code: 'custom', message: 'status must be an HTTP status code or a class such as 5xx' });
    return z.NEVER;
  })
  .meta({ type: 'string', pattern: '^(?:[1-5][0-9]{2}|[1-5][xX][xX])$' });

/** A route template (extension, docs/statistics.md), in any spelling normalizeTemplate takes. */
export const RouteParam = z
  .string()
  .transform((v, ctx) => {
    const template = normalizeTemplate(v);
    if (template !== undefined) return template;
    ctx.addIssue({ code: 'custom', message: 'route must be a template beginning with /, such as /users/{id}' });
    return z.NEVER;
  })
  .meta({ type: 'string' });

/** The filters the list, the stream and the counts share; `q` is the filter language (docs/filter-language.md). */
const trafficFilterFields = {
  startDate: DateBound('startDate').optional(),
  endDate: DateBound('endDate').optional(),
  domainId: uuidField('domainId').optional(),
  pathnameId: uuidField('pathnameId').optional(),
  method: Method.optional(),
  status: StatusFilter.optional(),
  level: LevelParam.optional(),
  q: FilterQuery.optional(),
  route: RouteParam.optional(),
};
const datesInOrder: [
  (q: { startDate?: string | undefined; endDate?: string | undefined }) => boolean,
  { message: string; path: string[] },
] = [
  (q) => !q.startDate || !q.endDate || q.startDate <= q.endDate,
  { message: 'startDate must not be after endDate', path: ['startDate'] },
];

/** The start of an entry id (`019a4c2e`, at least 8 hex digits), as the range of ids it names. */
const IdPrefix = z.string().transform((v, ctx) => {
  const range = idPrefixRange(v);
  if (range) return range;
  ctx.addIssue({
    code: 'custom',
    message: `idPrefix must be ${MIN_ID_PREFIX} to 32 hex digits of an id (hyphens optional)`,
  });
  return z.NEVER;
});

/** The list alone takes `idPrefix`: clients resolve a short id with it (`tapline traffic show shop 019a4c2e`). */
export const TrafficListQuery = PageQuery.extend({ ...trafficFilterFields, idPrefix: IdPrefix.optional() }).refine(
  ...datesInOrder,
);
export type TrafficListQuery = z.output<typeof TrafficListQuery>;
export type TrafficFilters = Omit<TrafficListQuery, 'page' | 'limit'>;

/** The HAR export takes the list's filters and `q`, and no paging: it streams every match. */
export const TrafficExportQuery = z.object(trafficFilterFields).refine(...datesInOrder);
export type TrafficExportQuery = z.output<typeof TrafficExportQuery>;

/** The stream takes the list's filters, and `after`: the id of the last entry seen (as Last-Event-ID). */
export const TrafficStreamQuery = z
  .object({ ...trafficFilterFields, after: uuidField('after').optional() })
  .refine(...datesInOrder);
export type TrafficStreamQuery = z.output<typeof TrafficStreamQuery>;

export const TrafficEntryParams = z.object({
  trafficSourceId: uuidField('trafficSourceId'),
  id: uuidField('id'),
});

export const NamedValue = z.object({ id: z.uuid(), value: z.string(), createdAt: Timestamp });
export const Pathname = NamedValue.extend({ domainId: z.uuid() });
export const PathnameQuery = PageQuery.extend({ domainId: uuidField('domainId').optional() });
