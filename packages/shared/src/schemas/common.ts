import { z } from 'zod';

/** A UUID in a path or body; the message names the field, as the spec's error messages do. */
export const uuidField = (name: string) => z.uuid({ message: `${name} must be a valid UUID` });

/**
 * JSON can carry a lone surrogate (`"\ud800"`): valid JSON, not Unicode. SQLite would store
 * U+FFFD in its place, so the 201 and every later read would disagree; such text is refused.
 */
const LONE_SURROGATE = /\p{Cs}/u;
/**
 * PostgreSQL's text cannot hold U+0000 at all (SQLite's can): it is refused on both engines, so
 * a daemon answers the same whichever it stores into. Bodies are stored as JSON text, where it
 * is an escape, and keep it.
 */
const NUL = /\u0000/;
export const isWellFormed = (text: string): boolean => !LONE_SURROGATE.test(text) && !NUL.test(text);
/** Why `text` (one `isWellFormed` refused) is refused. */
export const wellFormedMessage = (name: string, text = '') =>
  NUL.test(text)
    ? `${name} must not contain U+0000 (NUL)`
    : `${name} must be valid Unicode text (it holds a lone surrogate)`;
/** The refinement for a string field: `z.string().refine(...wellFormed('title'))`. */
export const wellFormed = (name: string) =>
  [
    isWellFormed,
    {
      error: (issue: { readonly input?: unknown }) =>
        wellFormedMessage(name, typeof issue.input === 'string' ? issue.input : ''),
    },
  ] as const;

/** ISO 8601 UTC with milliseconds, as every timestamp on the wire is. */
export const Timestamp = z.iso.datetime({ offset: false, precision: 3 });

/** A whole number sent as a query-string value. */
export const intQuery = (name: string, min: number, max: number) =>
  z
    .union([z.string(), z.number()])
    .transform((v, ctx) => {
      const text = String(v).trim();
      const n = /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
      if (!Number.isSafeInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `${name} must be an integer from ${min} to ${max}` });
        return z.NEVER;
      }
      return n;
    })
    // The wire form (see meta/json-schema.ts in the daemon): what OpenAPI says the value is.
    .meta({ type: 'integer', minimum: min, maximum: max });

export const MAX_PAGE_LIMIT = 1000;
export const DEFAULT_LIMIT = 10;

export const PageQuery = z.object({
  page: intQuery('page', 1, Number.MAX_SAFE_INTEGER).default(1),
  limit: intQuery('limit', 1, MAX_PAGE_LIMIT).default(DEFAULT_LIMIT),
});
export type PageQuery = z.output<typeof PageQuery>;

export const PaginationMeta = z.object({
  total: z.number().int().min(0),
  page: z.number().int().min(1),
  limit: z.number().int().min(1),
});
export type PaginationMeta = z.infer<typeof PaginationMeta>;

export const paginated = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), meta: PaginationMeta });
/** What `paginated(item)` parses to, for code that is generic over the item. */
export interface Page<T> {
  readonly data: readonly T[];
  readonly meta: PaginationMeta;
}

export const ErrorIssue = z.object({ path: z.string(), message: z.string() });

/**
 * The machine-readable `code` of every error body (docs/decisions.md §2.5): clients branch
 * on it, never on the message text. An extension beside the interface document's own fields.
 */
export const ERROR_CODES = [
  'token_missing',
  'token_invalid',
  'token_expired',
  'login_failed',
  'wrong_password',
  'validation_failed',
  'malformed_json',
  'body_too_deep',
  'body_too_large',
  'headers_too_large',
  'request_timeout',
  'unsupported_media_type',
  'bad_request',
  'source_not_found',
  'webhook_not_found',
  'alert_rule_not_found',
  'entry_not_found',
  'rule_not_found',
  'route_not_found',
  'method_not_allowed',
  'forbidden',
  'source_name_taken',
  'webhook_exists',
  'rule_conflict',
  'rate_limited',
  'too_many_streams',
  'overloaded',
  'database_unavailable',
  'stopping',
  'internal',
  'unknown_host',
] as const;
export const ErrorCode = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const ErrorBody = z.object({
  statusCode: z.number().int(),
  error: z.string(),
  code: ErrorCode,
  issues: z.array(ErrorIssue).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** What a client accepts: a newer daemon may send codes this client does not know yet. */
export const ReceivedErrorBody = ErrorBody.extend({ code: z.string().optional() });
export type ReceivedErrorBody = z.infer<typeof ReceivedErrorBody>;

/** The names of token scopes (docs/decisions.md §3.5). */
export const Scope = z.enum(['full', 'read', 'ingest']);
export type Scope = z.infer<typeof Scope>;
