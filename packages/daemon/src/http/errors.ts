import { STATUS_CODES } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { z } from 'zod';

export interface Issue {
  readonly path: string;
  readonly message: string;
}

/** An error that is the client's to see: its status and message go on the wire as they are. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly issues?: readonly Issue[],
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const notFound = (what: string) => new HttpError(404, `${what} not found`);
export const forbidden = () => new HttpError(403, 'Forbidden');
export const conflict = (message: string) => new HttpError(409, message);

/** `['requestHeaders', 'accept']` becomes `requestHeaders.accept`; `[3, 'method']` becomes `3.method`. */
export const issuePath = (path: readonly PropertyKey[]) => path.map(String).join('.');

export function validationError(error: z.ZodError, where: string): HttpError {
  const issues = error.issues.map((issue) => ({ path: issuePath(issue.path), message: describeIssue(issue) }));
  const shown = issues.slice(0, 3).map((i) => (i.path && !i.message.startsWith(i.path) ? `${i.path}: ${i.message}` : i.message));
  const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : '';
  const message = shown.length > 0 ? shown.join('; ') + more : `invalid ${where}`;
  return new HttpError(400, message, issues);
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'is required';
  if (issue.code === 'unrecognized_keys') return `unknown field ${issue.keys.join(', ')}`;
  return issue.message;
}

export const MALFORMED_JSON = 'Malformed JSON in request body';

/** body-parser's errors carry a `type`; map the ones a client can cause to our messages. */
const BODY_ERRORS: Record<string, [number, string]> = {
  'entity.too.large': [413, 'Request body too large'],
  'entity.parse.failed': [400, MALFORMED_JSON],
  'encoding.unsupported': [415, 'Unsupported content encoding'],
  'charset.unsupported': [415, 'Unsupported charset; send UTF-8 JSON'],
  'request.aborted': [400, 'Request aborted'],
  'request.size.invalid': [400, 'Request size did not match content length'],
};

/**
 * Other errors raised with a 4xx status by Express or body-parser (a path whose percent-encoding
 * does not decode, a gzip body that does not inflate) are the client's doing, never a 500.
 */
function clientErrorOf(error: unknown): [number, string] | undefined {
  if (error instanceof URIError) return [400, 'Malformed percent-encoding in the URL'];
  const status = typeof error === 'object' && error && 'status' in error ? Number(error.status) : Number.NaN;
  if (Number.isInteger(status) && status >= 400 && status < 500) return [status, STATUS_CODES[status] ?? 'Bad Request'];
  return undefined;
}

export const unknownRoute: RequestHandler = (_req, _res, next) => next(new HttpError(404, 'Not Found'));

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    let status = 500;
    let body: { statusCode: number; error: string; issues?: readonly Issue[] } = { statusCode: 500, error: 'Internal Server Error' };
    if (error instanceof HttpError) {
      status = error.status;
      body = { statusCode: status, error: error.message, ...(error.issues ? { issues: error.issues } : {}) };
    } else {
      const type = typeof error === 'object' && error && 'type' in error ? String(error.type) : '';
      const known = BODY_ERRORS[type] ?? clientErrorOf(error);
      if (known) [status] = known;
      if (known) body = { statusCode: known[0], error: known[1] };
      else logger.error({ err: error, method: req.method, path: req.path }, 'unexpected error while serving a request');
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.status(status).json(body);
  };
}
