import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { ErrorRequestHandler, Request, RequestHandler, Router } from 'express';
import type { Logger } from 'pino';
import type { ErrorBody, ErrorCode } from '@tapline/shared';
import type { EndpointRoute } from '@tapline/shared/lean';
import type { z } from 'zod';
import { type AuthAudit, logAuthFailure } from '../auth/audit.js';
import { isDatabaseUnavailable, type OutageLog } from '../db/unavailable.js';
import { answerBeforeBody } from './linger.js';

export interface Issue {
  readonly path: string;
  readonly message: string;
}

/** An error that is the client's to see: its status, code and message go on the wire as they are. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly issues?: readonly Issue[],
    /** Set on refusals of a token or a login: the error handler writes the audit line. */
    readonly audit?: AuthAudit,
  ) {
    super(message);
    this.name = 'HttpError';
  }

  get body(): ErrorBody {
    return {
      statusCode: this.status,
      error: this.message,
      code: this.code,
      ...(this.issues ? { issues: [...this.issues] } : {}),
    };
  }
}

/** A refusal the client should send again later: its answer carries `Retry-After`, in seconds. */
export class RetryLater extends HttpError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly retryAfterS: number,
  ) {
    super(503, code, message);
  }

  get headers(): Record<string, string> {
    return { 'retry-after': String(this.retryAfterS) };
  }
}

/**
 * Any request whose database work failed because the database cannot be reached or written now
 * (db/unavailable.ts). Not a word about the cause: that is for the log.
 */
export const DATABASE_UNAVAILABLE = new RetryLater(
  'database_unavailable',
  'The database is unavailable; retry shortly',
  2,
);

/** A large batch that waited `--large-batch-wait` for its turn (http/gate.ts). */
export const OVERLOADED = new RetryLater('overloaded', 'Too many large batches at once; retry shortly', 2);

/** The spec's 404 messages: `Traffic Source not found`, `Webhook not found`. */
const NOT_FOUND = {
  source_not_found: 'Traffic Source',
  webhook_not_found: 'Webhook',
  alert_rule_not_found: 'Alert rule',
  entry_not_found: 'HTTP traffic entry',
} as const;

export const notFound = (code: keyof typeof NOT_FOUND) => new HttpError(404, code, `${NOT_FOUND[code]} not found`);
export const forbidden = (reason: 'scope_denied' | 'source_denied' | 'not_owner', tokenId: string | null) =>
  new HttpError(403, 'forbidden', 'Forbidden', undefined, { reason, tokenId });
/** 400 for a body that breaks a rule the schema cannot express, naming the field. */
export const invalidField = (path: string, message: string, issue = message) =>
  new HttpError(400, 'validation_failed', message, [{ path, message: issue }]);

/** `['requestHeaders', 'accept']` becomes `requestHeaders.accept`; `[3, 'method']` becomes `3.method`. */
export const issuePath = (path: readonly PropertyKey[]) => path.map(String).join('.');

export function validationError(error: z.ZodError, where: string): HttpError {
  const issues = error.issues.map((issue) => ({ path: issuePath(issue.path), message: describeIssue(issue) }));
  const shown = issues
    .slice(0, 3)
    .map((i) => (i.path && !i.message.startsWith(i.path) ? `${i.path}: ${i.message}` : i.message));
  const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : '';
  const message = shown.length > 0 ? shown.join('; ') + more : `invalid ${where}`;
  return new HttpError(400, 'validation_failed', message, issues);
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'is required';
  if (issue.code === 'unrecognized_keys') return `unknown field ${issue.keys.join(', ')}`;
  return issue.message;
}

export const MALFORMED_JSON = 'Malformed JSON in request body';
export const BODY_TOO_LARGE = new HttpError(413, 'body_too_large', 'Request body too large');
export const REQUEST_ABORTED = new HttpError(400, 'bad_request', 'Request aborted');

/** body-parser's errors carry a `type`; map the ones a client can cause to our answers. */
const BODY_ERRORS: Record<string, HttpError> = {
  'entity.too.large': BODY_TOO_LARGE,
  'entity.parse.failed': new HttpError(400, 'malformed_json', MALFORMED_JSON),
  'encoding.unsupported': new HttpError(415, 'unsupported_media_type', 'Unsupported content encoding'),
  'charset.unsupported': new HttpError(415, 'unsupported_media_type', 'Unsupported charset; send UTF-8 JSON'),
  'request.aborted': REQUEST_ABORTED,
  'request.size.invalid': new HttpError(400, 'bad_request', 'Request size did not match content length'),
};

/**
 * Other errors raised with a 4xx status by Express or body-parser (a path whose percent-encoding
 * does not decode, a gzip body that does not inflate) are the client's doing, never a 500.
 */
function clientErrorOf(error: unknown): HttpError | undefined {
  if (error instanceof URIError) return new HttpError(400, 'bad_request', 'Malformed percent-encoding in the URL');
  const status = typeof error === 'object' && error && 'status' in error ? Number(error.status) : Number.NaN;
  if (Number.isInteger(status) && status >= 400 && status < 500)
    return new HttpError(status, 'bad_request', STATUS_CODES[status] ?? 'Bad Request');
  return undefined;
}

/** `/webhooks/:webhookId` and `/webhooks/:trafficSourceId` are one path to a client. */
const shapeOf = (path: string) => path.replace(/:[A-Za-z]+/g, ':');

/**
 * After every real route: a path the API serves, asked with a method it does not serve, is a 405
 * naming the methods it does (RFC 9110 §15.5.6), not a 404. OPTIONS keeps Express's own answer.
 */
export function methodNotAllowed(router: Router, endpoints: readonly EndpointRoute[]): void {
  const byShape = new Map<string, { path: string; methods: Set<string> }>();
  for (const e of endpoints) {
    const entry = byShape.get(shapeOf(e.path)) ?? { path: e.path, methods: new Set(['OPTIONS']) };
    byShape.set(shapeOf(e.path), entry);
    entry.methods.add(e.method);
    if (e.method === 'GET') entry.methods.add('HEAD');
  }
  for (const { path, methods } of byShape.values()) {
    const allow = [...methods].sort().join(', ');
    router.all(path, (req, res, next) => {
      if (req.method === 'OPTIONS') return next();
      res.setHeader('Allow', allow);
      next(new HttpError(405, 'method_not_allowed', `${req.method} is not allowed here; use ${allow}`));
    });
  }
}

export const unknownRoute: RequestHandler = (_req, _res, next) =>
  next(new HttpError(404, 'route_not_found', 'Not Found'));

export const INTERNAL = new HttpError(500, 'internal', 'Internal Server Error');

/** The client's error an exception stands for (ours, body-parser's, Express's); undefined for a bug. */
export function knownError(error: unknown): HttpError | undefined {
  if (error instanceof HttpError) return error;
  if (isDatabaseUnavailable(error)) return DATABASE_UNAVAILABLE;
  const type = typeof error === 'object' && error && 'type' in error ? String(error.type) : '';
  return BODY_ERRORS[type] ?? clientErrorOf(error);
}

/** Where failures are logged: the daemon's logger, and its outage log (one line per cause at most every few seconds). */
export interface FailureLogs {
  readonly logger: Logger;
  readonly outages: OutageLog;
}

/**
 * The answer to a request that failed with `error`, after the line the failure needs in the log:
 * a refused token's audit line, the outage line of a database that cannot serve (rate-limited:
 * a restart under load fails hundreds of requests a second), the stack of a bug. Every error
 * writer (Express's, the lean path's, OTLP's) goes through here, so they answer alike.
 */
export function failureAnswer(
  error: unknown,
  req: Pick<Request, 'ip' | 'socket' | 'method' | 'path'>,
  logs: FailureLogs,
): HttpError {
  if (error instanceof HttpError && error.audit) logAuthFailure(logs.logger, req, error.status, error.audit);
  const known = knownError(error);
  if (known === DATABASE_UNAVAILABLE) logs.outages.report(error, `${req.method} ${req.path}`);
  else if (!known)
    logs.logger.error({ err: error, method: req.method, path: req.path }, 'unexpected error while serving a request');
  return known ?? INTERNAL;
}

const JSON_CONTENT = 'application/json; charset=utf-8';

/** As Express's `res.status().json()`: one string written with its headers, the same headers. */
export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  extra: Record<string, string> = {},
): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { ...extra, 'Content-Type': JSON_CONTENT, 'Content-Length': String(Buffer.byteLength(text)) });
  res.end(text);
}

/**
 * The one writer of an error answer, on node:http (Express's error handler and the lean path):
 * a connection whose answer had begun is cut, a body nobody read lingers (linger.ts).
 */
export function writeFailure(req: IncomingMessage, res: ServerResponse, answer: HttpError): void {
  if (res.headersSent) return void res.destroy();
  answerBeforeBody(req, res);
  sendJson(res, answer.status, answer.body, answer instanceof RetryLater ? answer.headers : {});
}

export function errorHandler(logs: FailureLogs): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => writeFailure(req, res, failureAnswer(error, req, logs));
}
