import type { IncomingMessage } from 'node:http';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * The route template Express matched (docs/statistics.md): the mount path (`req.baseUrl`) plus
 * the route's own path (`req.route.path`). A plain `node:http` app, a route given as a regular
 * expression, or a request no route answered has none. Express keeps only the concrete mount path
 * (`/shops/7/orders`), so a segment equal to one of the request's parameters (a router with
 * `mergeParams`) is put back as that parameter; the daemon normalises `:name` to `{name}`.
 */
export function expressRoute(req: IncomingMessage): string | undefined {
  const route: unknown = 'route' in req ? req.route : undefined;
  if (!isRecord(route) || typeof route.path !== 'string') return undefined;
  const base = 'baseUrl' in req && typeof req.baseUrl === 'string' ? req.baseUrl : '';
  const params = 'params' in req && isRecord(req.params) ? req.params : {};
  const named = new Map<string, string>();
  for (const [name, value] of Object.entries(params))
    if (typeof value === 'string' && value !== '') named.set(value, name);
  const mount = base
    .split('/')
    .map((segment) => (named.has(segment) ? `:${named.get(segment) ?? ''}` : segment))
    .join('/');
  const template = `${mount}${route.path === '/' && mount !== '' ? '' : route.path}`;
  return template.startsWith('/') ? template : undefined;
}
