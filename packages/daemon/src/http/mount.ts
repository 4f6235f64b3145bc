import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Endpoint, EndpointName, ParsedInput, ResponseOf } from '@tapline/shared';
import { contractRoutes, type EndpointRoute, type SchemaPart } from '@tapline/shared/lean';
import { type AccessInput, authorize, type Loaded } from '../auth/policy.js';
import type { Principal, Refusal, TokenService } from '../auth/tokens.js';
import type { ServerDeps } from './server-deps.js';
import { type BodyMode, createBodyReader, declaredOver, handOver } from './read-body.js';
import { BODY_TOO_LARGE, HttpError, validationError } from './errors.js';
import { recordWork } from './inflight.js';
import './locals.js';
import { endpointNamed, loadedSchemas } from './schemas.js';

/** An endpoint of the contract but its schemas: what a route is mounted with (§20.23). */
export type RouteOf<E extends Endpoint> = Omit<E, SchemaPart>;

export interface RequestContext<E extends Endpoint = Endpoint> {
  readonly endpoint: RouteOf<E>;
  readonly principal: E['scopes'] extends null ? null : Principal;
  /** What the endpoint's `access` names, found and authorized before the handler (auth/policy.ts). */
  readonly loaded: Loaded<E['access']>;
}

export type Handler<E extends Endpoint> = (input: ParsedInput<E>, ctx: RequestContext<E>) => Promise<ResponseOf<E>>;

/** The token of an `Authorization: Bearer …` header; undefined when there is none. */
export const bearerToken = (header: string) => /^Bearer[ ]+(.*)$/i.exec(header.trim())?.[1]?.trim();

/** The 401 of a token that does not verify; an expired one says since when (docs/api.md, "Errors"). */
export function refusalOf({ failure, expiredAt }: Refusal): HttpError {
  if (expiredAt) return new HttpError(401, 'token_expired', `Token expired at ${expiredAt}`, undefined, failure);
  return new HttpError(401, 'token_invalid', 'Invalid token', undefined, failure);
}

/**
 * 400 when there is no token at all, 401 when there is one that does not verify; each one
 * audited. A database that cannot say rejects `verify`: Express passes that on as a 503.
 */
function authenticate(tokens: TokenService): RequestHandler {
  return async (req, res, next) => {
    const header = req.headers.authorization ?? '';
    const token = bearerToken(header);
    if (!token) {
      const audit = { reason: header.trim() ? 'malformed' : 'missing', tokenId: null } as const;
      return next(new HttpError(400, 'token_missing', 'Authentication token missing', undefined, audit));
    }
    const verified = await tokens.verify(token);
    if ('failure' in verified) return next(refusalOf(verified));
    res.locals.principal = verified.principal;
    next();
  };
}

/** `schema`'s parse of `value`, or a 400 naming `where`; run by requests, once the schemas are loaded. */
function parsePart(schema: Endpoint['body'], value: unknown, where: string): unknown {
  if (!schema) return undefined;
  const quick = loadedSchemas()?.QUICK_CHECKS.get(schema)?.(value);
  if (quick !== undefined) return quick;
  const result = schema.safeParse(value, { reportInput: true });
  if (!result.success) throw validationError(result.error, where);
  return result.data;
}

/**
 * Express's side of the one body reader (read-body.ts): the body goes on `req.body`, a refusal to
 * `next`. A request without a body is fine here; the endpoint's schema decides if it needed one.
 */
function jsonBody(
  limit: number,
  mode: BodyMode,
  deps: Pick<ServerDeps, 'largeBodies' | 'storedBatches' | 'config'>,
): RequestHandler {
  const reader = createBodyReader(limit, mode, deps);
  return (req, res, next) =>
    reader.read(req, res).then((body) => {
      req.body = body;
      next();
    }, next);
}

/** Authentication (when the endpoint has scopes) and the body reader, the start of every chain. */
function checks(deps: ServerDeps, endpoint: EndpointRoute, mode: BodyMode): RequestHandler[] {
  return [
    ...(endpoint.scopes ? [authenticate(deps.tokens)] : []),
    jsonBody(endpoint.maxBody ?? deps.config.maxBody, mode, deps),
  ];
}

/**
 * The endpoint's declared checks (auth/policy.ts), then its context. The principal is set on every
 * endpoint with scopes (authentication runs first there) and `authorize` gives what `Loaded` says
 * for the endpoint's access, which is what RequestContext's conditional types say; the compiler
 * cannot follow either through Express and the switch over `access`.
 */
async function authorized<E extends Endpoint>(
  deps: ServerDeps,
  endpoint: RouteOf<E>,
  principal: Principal | null,
  input: AccessInput,
): Promise<RequestContext<E>> {
  const loaded = await authorize(endpoint, principal, input, deps.finders);
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- see above
  return { endpoint, principal, loaded } as RequestContext<E>;
}

const VERB = { GET: 'get', POST: 'post', PATCH: 'patch', DELETE: 'delete' } as const;

/** The checks, then the endpoint's own work, which stopping waits for (see inflight.ts). */
function register(
  router: Router,
  deps: ServerDeps,
  endpoint: EndpointRoute,
  mode: BodyMode,
  work: (req: Request, res: Response) => Promise<void>,
): void {
  const tracked: RequestHandler = (req, res) => recordWork(res, work(req, res));
  router[VERB[endpoint.method]](endpoint.path, ...checks(deps, endpoint, mode), tracked);
}

/** An endpoint without a response schema (`response: null`) answers empty. */
function answer(res: Response, endpoint: EndpointRoute, result: unknown): void {
  if (!endpoint.schemas.includes('response')) res.status(endpoint.status).end();
  else res.status(endpoint.status).json(result);
}

/**
 * The contract's endpoint `name` with its schemas, as the route's type `E` has it: the route
 * tables pair each name with its endpoint's type (table.ts), which the name alone cannot carry.
 */
async function endpointOf<E extends Endpoint>(name: EndpointName): Promise<E> {
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- see above
  return (await endpointNamed(name)) as Endpoint as E;
}

/** The route of the contract's endpoint `name`, without its schemas, as `E` has it (see above). */
// eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- see above
const routeOf = <E extends Endpoint>(name: EndpointName) => contractRoutes[name] as EndpointRoute as RouteOf<E>;

/**
 * An endpoint's work once authentication and the body reader passed, whichever server path read
 * the request: Express passes its `req`; the lean ingest path (lean.ts) the same three parts.
 */
export type RouteWork = (
  req: Pick<Request, 'params' | 'query' | 'body'>,
  principal: Principal | null,
) => Promise<unknown>;

/** What `mount` and `mountPrepared` give back, so that lean.ts can serve the same endpoint. */
export interface MountedRoute {
  readonly endpoint: EndpointRoute;
  readonly mode: 'parse' | 'raw';
  readonly work: RouteWork;
}

function registerJson(router: Router, deps: ServerDeps, route: MountedRoute): MountedRoute {
  const { endpoint, work } = route;
  register(
    router,
    deps,
    endpoint,
    !endpoint.schemas.includes('body') && route.mode === 'parse' ? 'none' : route.mode,
    async (req, res) => answer(res, endpoint, await work(req, res.locals.principal ?? null)),
  );
  return route;
}

/**
 * Mounts one endpoint of the contract. The checks run in the documented order: authentication,
 * the body itself (415/413/malformed), input validation (the schemas, then `validate`: rules they
 * cannot express), then the endpoint's access (404 before 403), and only then the handler. A start
 * mounts the endpoint's route; its schemas are read by its first request (§20.23).
 */
export function mount<E extends Endpoint>(
  router: Router,
  deps: ServerDeps,
  name: EndpointName,
  handler: Handler<E>,
  validate?: (input: ParsedInput<E>) => void,
): MountedRoute {
  const endpoint = routeOf<E>(name);
  return registerJson(router, deps, {
    endpoint,
    mode: 'parse',
    work: async (req, principal) => {
      const body: unknown = req.body === undefined && endpoint.schemas.includes('body') ? {} : req.body;
      const input = await inputOf<E>(name, endpoint, req, body);
      validate?.(input);
      return handler(input, await authorized(deps, endpoint, principal, input));
    },
  });
}

/**
 * The path, query and body through the endpoint's schemas. ParsedInput<E> is exactly what these
 * parses give, but the compiler cannot follow the optional schemas through E.
 */
function parseInput<E extends Endpoint>(
  endpoint: E,
  req: Pick<Request, 'params' | 'query'>,
  body: unknown,
): ParsedInput<E> {
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- see above
  return {
    params: parsePart(endpoint.params, req.params, 'path'),
    // req.query is parsed when read; endpoints without a query schema never read it.
    query: endpoint.query ? parsePart(endpoint.query, req.query, 'query') : undefined,
    body: parsePart(endpoint.body, body, 'body'),
  } as ParsedInput<E>;
}

const isInput = (part: SchemaPart) => part === 'params' || part === 'query' || part === 'body';

/**
 * A request's input through its endpoint's schemas, which the first request that has any loads
 * (§20.23). One that takes no params, query or body reads none: a start's first answer (`/healthz`)
 * builds no schema.
 */
async function inputOf<E extends Endpoint>(
  name: EndpointName,
  endpoint: EndpointRoute,
  req: Pick<Request, 'params' | 'query'>,
  body: unknown,
): Promise<ParsedInput<E>> {
  if (endpoint.schemas.some(isInput)) {
    const schemas = await endpointOf<E>(name);
    // A route whose body is not the schema's to check (mountPrepared) leaves it out.
    return parseInput(endpoint.schemas.includes('body') ? schemas : { ...schemas, body: undefined }, req, body);
  }
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- ParsedInput<E> of an endpoint without input schemas
  return { params: undefined, query: undefined, body: undefined } as ParsedInput<E>;
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
  deps: ServerDeps,
  name: EndpointName,
  prepare: (body: Buffer | null, path: Request['params']) => Promise<() => B>,
  handler: (input: { params: ParsedInput<E>['params']; body: B }, ctx: RequestContext<E>) => Promise<ResponseOf<E>>,
): MountedRoute {
  const endpoint = routeOf<E>(name);
  // The body is `prepare`'s: only the path goes through the schemas.
  const withoutBody = { ...endpoint, schemas: endpoint.schemas.filter((part) => part !== 'body') };
  return registerJson(router, deps, {
    endpoint,
    mode: 'raw',
    work: async (req, principal) => {
      const content = await prepare(Buffer.isBuffer(req.body) && req.body.length > 0 ? req.body : null, req.params);
      const { params } = await inputOf<E>(name, withoutBody, req, undefined);
      const body = content();
      const ctx = await authorized<E>(deps, endpoint, principal, { params, query: undefined, body });
      // Prepared and checked: a large batch waits for its turn to be stored, the next is read meanwhile (§20.28).
      await handOver(req.body);
      return handler({ params, body }, ctx);
    },
  });
}

/**
 * `mount` for answers that are not one JSON body (event streams): the same checks in the same
 * order, then the handler writes `res` itself. Errors it throws before writing are JSON as usual.
 */
export function mountRaw<E extends Endpoint>(
  router: Router,
  deps: ServerDeps,
  name: EndpointName,
  handler: (input: ParsedInput<E>, ctx: RequestContext<E>, req: Request, res: Response) => Promise<void>,
): void {
  const endpoint = routeOf<E>(name);
  register(router, deps, endpoint, 'none', async (req, res) => {
    const input = await inputOf<E>(name, endpoint, req, undefined);
    await handler(input, await authorized(deps, endpoint, res.locals.principal ?? null, input), req, res);
  });
}

/**
 * `mount` for a body that is not JSON (OTLP's protobuf): authentication, then the body as bytes,
 * decompressed (gzip, deflate, br), up to the endpoint's limit (413); `types` accepts or refuses
 * the Content-Type (415 with `typeMessage`); then the endpoint's access. The handler decodes the
 * body and writes `res` itself; errors go to `next`.
 */
export function mountBytes<E extends Endpoint>(
  router: Router,
  deps: ServerDeps,
  name: EndpointName,
  types: { readonly accepts: (contentType: string) => boolean; readonly message: string },
  handler: (body: Buffer, ctx: RequestContext<E>, req: Request, res: Response) => Promise<void>,
): void {
  const route = routeOf<E>(name);
  const limit = route.maxBody ?? deps.config.maxBody;
  const reader = express.raw({ limit, type: () => true });
  const checkBody: RequestHandler = (req, _res, next) => {
    if (!types.accepts(req.headers['content-type'] ?? ''))
      return next(new HttpError(415, 'unsupported_media_type', types.message));
    next(declaredOver(req.headers, limit) ? BODY_TOO_LARGE : undefined);
  };
  const work = async (req: Request, res: Response) => {
    const input = { params: req.params, query: undefined, body: undefined };
    const ctx = await authorized(deps, route, res.locals.principal ?? null, input);
    await handler(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0), ctx, req, res);
  };
  const tracked: RequestHandler = (req, res) => recordWork(res, work(req, res));
  router[VERB[route.method]](
    route.path,
    ...(route.scopes ? [authenticate(deps.tokens)] : []),
    checkBody,
    reader,
    tracked,
  );
}
