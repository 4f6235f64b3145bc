import { contractRoutes, type EndpointRoute } from '@tapline/shared/lean';
import type { Contract, Endpoint, EndpointName, ParsedInput, ResponseOf, Tag, TaggedEndpoints } from '@tapline/shared';
import type { Request, Response, Router } from 'express';
import type { ServerDeps } from './server-deps.js';
import {
  type Handler,
  type MountedRoute,
  mount,
  mountBytes,
  mountPrepared,
  mountRaw,
  type RequestContext,
} from './mount.js';

/** A JSON endpoint with rules its schemas cannot express, checked before its access (400 before 404). */
export interface JsonRoute<E extends Endpoint> {
  readonly kind: 'json';
  readonly validate: (input: ParsedInput<E>) => void;
  readonly handler: Handler<E>;
}

/** An answer that is not one JSON body (an event stream, a HAR or Prometheus text): `res` is the handler's. */
export interface RawRoute<E extends Endpoint> {
  readonly kind: 'raw';
  readonly handler: (input: ParsedInput<E>, ctx: RequestContext<E>, req: Request, res: Response) => Promise<void>;
}

/** A body that is not JSON (OTLP's protobuf), read as bytes: see `mountBytes`. */
export interface BytesRoute<E extends Endpoint> {
  readonly kind: 'bytes';
  readonly types: { readonly accepts: (contentType: string) => boolean; readonly message: string };
  readonly handler: (body: Buffer, ctx: RequestContext<E>, req: Request, res: Response) => Promise<void>;
}

/** A body parsed and checked by its own `prepare` (the batch, in a worker thread): see `mountPrepared`. */
export interface PreparedRoute<E extends Endpoint> {
  readonly kind: 'prepared';
  readonly mount: (router: Router, deps: ServerDeps, name: NameOf<E>) => MountedRoute;
}

/** The name of the contract's endpoint `E` (every name, for `Endpoint` itself). */
type NameOf<E extends Endpoint> = { [N in EndpointName]: Contract[N] extends E ? N : never }[EndpointName];

/** `mountPrepared`'s two halves as a route; `B` is what `prepare` makes of the body. */
export function prepared<E extends Endpoint, B>(
  prepare: (body: Buffer | null, path: Request['params']) => Promise<() => B>,
  handler: (input: { params: ParsedInput<E>['params']; body: B }, ctx: RequestContext<E>) => Promise<ResponseOf<E>>,
): PreparedRoute<E> {
  return {
    kind: 'prepared',
    mount: (router, deps, name) => mountPrepared(router, deps, name, prepare, handler),
  };
}

/** How one endpoint is served: a plain function is a JSON handler (ts-rest's "implementation or options"). */
export type Route<E extends Endpoint> = Handler<E> | JsonRoute<E> | RawRoute<E> | BytesRoute<E> | PreparedRoute<E>;

/**
 * Every endpoint of one tag of the contract, each with the route of its own endpoint: a missing
 * one, one for another endpoint, or a handler whose answer is not the endpoint's fails to compile.
 * Routes are registered in the table's order (a literal path before a `:param` that would take it).
 */
export type RouteTable<T extends Tag> = {
  readonly [N in keyof TaggedEndpoints<T>]: TaggedEndpoints<T>[N] extends Endpoint
    ? Route<TaggedEndpoints<T>[N]>
    : never;
};

function mountRoute(
  router: Router,
  deps: ServerDeps,
  name: EndpointName,
  route: Route<Endpoint>,
): MountedRoute | undefined {
  if (typeof route === 'function') return mount(router, deps, name, route);
  switch (route.kind) {
    case 'json':
      return mount(router, deps, name, route.handler, route.validate);
    case 'prepared':
      return route.mount(router, deps, name);
    case 'raw':
      return void mountRaw(router, deps, name, route.handler);
    case 'bytes':
      return void mountBytes(router, deps, name, route.types, route.handler);
  }
}

/**
 * Mounts one tag's table. Gives back the JSON routes by name, which the lean ingest path serves as
 * well (lean.ts); authentication, the body, validation and access run in both the same way.
 */
export function mountTable<T extends Tag>(
  router: Router,
  deps: ServerDeps,
  tag: T,
  table: RouteTable<T>,
): ReadonlyMap<string, MountedRoute> {
  const mounted = new Map<string, MountedRoute>();
  // The contract's routes, without their schemas: the first request of each reads those (§20.23).
  const endpoints: Readonly<Record<string, EndpointRoute>> = contractRoutes;
  for (const [name, endpoint] of Object.entries(endpoints))
    if (endpoint.tag === tag && !(name in table)) throw new Error(`${tag}: no route for ${name}`);
  // Each entry is the route of the endpoint of its own name (RouteTable says so); the loop over
  // the entries cannot carry that pairing, so each is taken as a route of an endpoint.
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- see above
  for (const [name, route] of Object.entries(table) as [EndpointName, Route<Endpoint>][]) {
    const endpoint = endpoints[name];
    if (!endpoint || endpoint.tag !== tag) throw new Error(`${tag}: ${name} is no endpoint of this tag`);
    const served = mountRoute(router, deps, name, route);
    if (served) mounted.set(name, served);
  }
  return mounted;
}
