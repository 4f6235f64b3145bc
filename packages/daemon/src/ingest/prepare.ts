import type * as Shared from '@tapline/shared';
import type { ComposeRecord, ErrorBody, HttpMethod, Level } from '@tapline/shared';
import { domainOf, levelOf } from '@tapline/shared/lean';
import { HttpError, type Issue, validationError } from '../http/errors.js';
import { parseJson } from '../http/json-body.js';
import type { Redactor } from './redact.js';
import type { Exchange } from '../http-traffic/repo.js';

/**
 * A compose body made ready to store: its level and host derived, secrets redacted, and the
 * request and response serialized. Everything here is pure, so a worker thread can prepare a
 * large batch while the event loop goes on storing the previous one (see prepare-pool.ts).
 */
export interface PreparedRecord {
  readonly domain: string;
  readonly pathname: string;
  readonly status: number;
  readonly method: HttpMethod;
  readonly level: Level;
  readonly protocol: ComposeRecord['protocol'];
  readonly elapsedTime: number;
  readonly trafficUserId: string | null;
  readonly requestHeaders: string;
  readonly requestBody: string | null;
  readonly queryParams: string;
  readonly responseHeaders: string;
  readonly responseBody: string | null;
  /** The client's `startedAt`, normalised; becomes `createdAt` (docs/decisions.md §17.1). */
  readonly startedAt: string | null;
  /** The route template (extension field `route`), or null. */
  readonly route: string | null;
}

/** docs/decisions.md §17.1: a client clock a little ahead is fine; one further ahead is a mistake. */
export const MAX_STARTED_AHEAD_MS = 5 * 60_000;
const AHEAD_MESSAGE = 'startedAt must not be more than 5 minutes in the future';

/** The issues of `startedAt` values too far ahead of `now` (the daemon's clock), by item path prefix. */
export function startedAtIssues(
  items: readonly { readonly startedAt?: string | undefined }[],
  now: number,
  prefix: (index: number) => string,
): Issue[] {
  return items.flatMap((item, index) =>
    item.startedAt !== undefined && Date.parse(item.startedAt) - now > MAX_STARTED_AHEAD_MS
      ? [{ path: `${prefix(index)}startedAt`, message: AHEAD_MESSAGE }]
      : [],
  );
}

/** 400 naming every issue, in the style of validationError. */
export function issuesError(issues: readonly Issue[], message: string): HttpError {
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return new HttpError(400, 'validation_failed', `${issues[0]?.path}: ${message}${more}`, issues);
}

const jsonOrNull = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

/** `hosts` caches domainOf per domainUrl: URL parsing showed in batch profiles, and a batch repeats a few origins. */
export function prepareRecord(
  input: ComposeRecord,
  redactor: Redactor,
  hosts = new Map<string, string>(),
): { record: PreparedRecord; shown: Exchange } {
  let domain = hosts.get(input.domainUrl);
  if (domain === undefined) hosts.set(input.domainUrl, (domain = domainOf(input.domainUrl)));
  const request = {
    headers: redactor.headers(input.requestHeaders),
    body: redactor.values(input.requestBody),
    queryParams: redactor.query(input.queryParams),
  };
  const response = { headers: redactor.headers(input.responseHeaders), body: redactor.values(input.responseBody) };
  const record: PreparedRecord = {
    domain,
    pathname: input.pathnameUrl,
    status: input.status,
    method: input.method,
    level: levelOf(input.status),
    protocol: input.protocol,
    elapsedTime: input.elapsedTime,
    trafficUserId: input.trafficUserId ?? null,
    requestHeaders: JSON.stringify(request.headers),
    requestBody: jsonOrNull(request.body),
    queryParams: JSON.stringify(request.queryParams),
    responseHeaders: JSON.stringify(response.headers),
    responseBody: jsonOrNull(response.body),
    startedAt: input.startedAt ?? null,
    route: input.route ?? null,
  };
  return { record, shown: { request, response } };
}

/** A batch as read off the wire: its body undecoded (`null` when the request carried none). */
export interface BatchTask {
  readonly body: Uint8Array | null;
  /** The path's; every item must name the same source. */
  readonly trafficSourceId: string;
  /** The daemon's clock at receipt, in ms since the epoch, for the `startedAt` rule. */
  readonly receivedAt: number;
}

export type BatchResult =
  | { readonly ok: true; readonly records: PreparedRecord[] }
  | {
      readonly ok: false;
      /** `body`: the JSON itself is unusable; `items`: it parsed, and its content is invalid. */
      readonly stage: 'body' | 'items';
      /** Plain data (a worker thread's result must be): the HttpError's body. */
      readonly error: ErrorBody;
      /** Set when preparing failed by a bug rather than by the body (a plain 500). */
      readonly fault?: string;
    };

const UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Everything a batch needs before storage, in the order a single compose checks it: malformed
 * JSON, nesting depth, the schema (issues named by index), each item's trafficSourceId against
 * the path. Errors come back as values, since a worker's result must be plain data.
 */
/**
 * What a batch is checked with: the contract's schemas, which the event loop loads on first use
 * (http/schemas.ts) and the batch thread with its bundle (docs/decisions.md §20.23).
 */
export type BatchSchemas = Pick<typeof Shared, 'contract' | 'parseComposeBatchFast'>;

export function prepareBatch(task: BatchTask, redactor: Redactor, schemas: BatchSchemas): BatchResult {
  const { contract, parseComposeBatchFast } = schemas;
  let value: unknown = {};
  if (task.body !== null) {
    try {
      // The byte-order mark is parseJson's to drop, as for every other body (the reader checked UTF-8).
      value = parseJson(UTF8.decode(task.body));
    } catch (error) {
      if (error instanceof HttpError) return { ok: false, stage: 'body', error: error.body };
      throw error;
    }
  }
  // The schema decides (and words the errors) whenever the quick check does not pass the body.
  let items = parseComposeBatchFast(value);
  if (!items) {
    const parsed = contract.composeBatch.body.safeParse(value, { reportInput: true });
    if (!parsed.success) return { ok: false, stage: 'items', error: validationError(parsed.error, 'body').body };
    items = parsed.data;
  }
  const mismatched = items.flatMap((item, index) =>
    item.trafficSourceId === task.trafficSourceId
      ? []
      : [{ path: `${index}.trafficSourceId`, message: 'must equal the trafficSourceId in the path' }],
  );
  if (mismatched.length > 0)
    return {
      ok: false,
      stage: 'items',
      error: issuesError(mismatched, 'trafficSourceId in the body must equal the one in the path').body,
    };
  const ahead = startedAtIssues(items, task.receivedAt, (index) => `${index}.`);
  if (ahead.length > 0) return { ok: false, stage: 'items', error: issuesError(ahead, AHEAD_MESSAGE).body };
  const hosts = new Map<string, string>();
  return { ok: true, records: items.map((input) => prepareRecord(input, redactor, hosts).record) };
}
