import type { Request, RequestHandler, Response, Router } from 'express';
import type { Endpoint, ParsedInput, ResponseOf } from '@tapline/shared';
import type { z } from 'zod';
import type { Principal, TokenService } from '../auth/tokens.js';
import type { Deps } from '../deps.js';
import { type BodyMode, jsonBody } from './body.js';
import { forbidden, HttpError, validationError } from './errors.js';
import { recordWork } from './inflight.js';
import './locals.js';

export interface RequestContext<E extends Endpoint = Endpoint> {
  readonly endpoint: E;
  readonly principal: E['scopes'] extends null ? null : Principal;
}

export type Handler<E extends Endpoint> = (input: ParsedInput<E>, ctx: RequestContext<E>) => Promise<ResponseOf<E>>;

/** 400 when there is no token at all, 401 when there is one that does not verify; each one audited. */
function authenticate(tokens: TokenService): RequestHandler {
  return async (req, res, next) => {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer[ ]+(.*)$/i.exec(header.trim());
    const token = match?.[1]?.trim();
    if (!token) {
      const audit = { reason: header.trim() ? 'malformed' : 'missing', tokenId: null } as const;
      return next(new HttpError(400, 'token_missing', 'Authentication token missing', undefined, audit));
    }
    const verified = await tokens.verify(token);
    if ('failure' in verified) return next(new HttpError(401, 'token_invalid', 'Invalid token', undefined, verified.failure));
    res.locals.principal = verified.principal;
    next();
  };
}

function parsePart(schema: z.ZodType | undefined, value: unknown, where: string): unknown {
  if (!schema) return undefined;
  const result = schema.safeParse(value, { reportInput: true });
  if (!result.success) throw validationError(result.error, where);
  return result.data;
}

/** Authentication (when the endpoint has scopes) and the body reader, the start of every chain. */
function checks(deps: Deps, endpoint: Endpoint, mode: BodyMode): RequestHandler[] {
  return [...(endpoint.scopes ? [authenticate(deps.tokens)] : []), jsonBody(endpoint.maxBody ?? deps.config.maxBody, mode, deps)];
}

// The principal is set on every endpoint with scopes (authenticate runs first there), which is
// what RequestContext's conditional type says; the compiler cannot follow it through Express.
// eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- see above
const contextOf = <E extends Endpoint>(endpoint: E, res: Response) => ({ endpoint, principal: res.locals.principal ?? null }) as RequestContext<E>;

const VERB = { GET: 'get', POST: 'post', PATCH: 'patch', DELETE: 'delete' } as const;

/** The checks, then the endpoint's own work, which stopping waits for (see inflight.ts). */
function register(router: Router, deps: Deps, endpoint: Endpoint, mode: BodyMode, work: (req: Request, res: Response) => Promise<void>): void {
  const tracked: RequestHandler = (req, res) => recordWork(res, work(req, res));
  router[VERB[endpoint.method]](endpoint.path, ...checks(deps, endpoint, mode), tracked);
}

function answer(res: Response, endpoint: Endpoint, result: unknown): void {
  if (endpoint.response === null) res.status(endpoint.status).end();
  else res.status(endpoint.status).json(result);
}

/**
 * Mounts one endpoint of the contract. The checks run in the documented order: authentication,
 * the body itself (415/413/malformed), input validation; the handler then answers 404 before 403.
 */
export function mount<E extends Endpoint>(router: Router, deps: Deps, endpoint: E, handler: Handler<E>): void {
  register(router, deps, endpoint, endpoint.body !== undefined ? 'parse' : 'none', async (req, res) => {
    const input = parseInput(endpoint, req, req.body === undefined && endpoint.body ? {} : req.body);
    answer(res, endpoint, await handler(input, contextOf(endpoint, res)));
  });
}

/**
 * The path, query and body through the endpoint's schemas. ParsedInput<E> is exactly what these
 * parses give, but the compiler cannot follow the optional schemas through E.
 */
function parseInput<E extends Endpoint>(endpoint: E, req: Request, body: unknown): ParsedInput<E> {
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- see above
  return {
    params: parsePart(endpoint.params, req.params, 'path'),
    // req.query is parsed when read; endpoints without a query schema never read it.
    query: endpoint.query ? parsePart(endpoint.query, req.query, 'query') : undefined,
    body: parsePart(endpoint.body, body, 'body'),
  } as ParsedInput<E>;
}

/**
 * `mount` for an endpoint whose body `prepare` parses and checks instead of the body schema (the
 * batch endpoint does it in a worker thread), with the body read raw (null when the request had
 * none) and the path as sent. `prepare` throws for the body itself (malformed, too deep) and
 * resolves to a function that gives the body or throws its validation errors, so the documented
 * order holds: the body itself, then the path, then the body's content.
 */
export function mountPrepared<E extends Endpoint, B>(
  router: Router,
  deps: Deps,
  endpoint: E,
  prepare: (body: Buffer | null, path: Request['params']) => Promise<() => B>,
  handler: (input: { params: ParsedInput<E>['params']; body: B }, ctx: RequestContext<E>) => Promise<ResponseOf<E>>,
): void {
  register(router, deps, endpoint, 'raw', async (req, res) => {
    const content = await prepare(Buffer.isBuffer(req.body) && req.body.length > 0 ? req.body : null, req.params);
    const { params } = parseInput({ ...endpoint, body: undefined }, req, undefined);
    answer(res, endpoint, await handler({ params, body: content() }, contextOf(endpoint, res)));
  });
}

/**
 * `mount` for answers that are not one JSON body (event streams): the same checks in the same
 * order, then the handler writes `res` itself. Errors it throws before writing are JSON as usual.
 */
export function mountRaw<E extends Endpoint>(
  router: Router,
  deps: Deps,
  endpoint: E,
  handler: (input: ParsedInput<E>, ctx: RequestContext<E>, req: Request, res: Response) => Promise<void>,
): void {
  register(router, deps, endpoint, 'none', async (req, res) => {
    await handler(parseInput(endpoint, req, undefined), contextOf(endpoint, res), req, res);
  });
}

/** The token's scope must allow this endpoint; checked where ownership is (after 404). */
export function requireScope(ctx: RequestContext): void {
  const { principal, endpoint } = ctx;
  if (!principal || !endpoint.scopes?.includes(principal.scope)) throw forbidden('scope_denied', principal?.tokenId ?? null);
}

/** Ownership, source restriction and scope, in one place for every endpoint that names a source. */
export function authorizeSource(ctx: RequestContext, source: { readonly id: string; readonly userId: string }): void {
  const { principal } = ctx;
  if (!principal || source.userId !== principal.user.id) throw forbidden('not_owner', principal?.tokenId ?? null);
  if (principal.sourceId !== null && principal.sourceId !== source.id) throw forbidden('source_denied', principal.tokenId);
  requireScope(ctx);
}
