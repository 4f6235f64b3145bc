import { isRecord } from './json.js';

/**
 * Endpoint paths, apart from the contract's schemas: what `@tapline/node` calls on its hot path
 * must not pull zod and the whole contract into its bundle. contract.ts takes these paths from
 * here, so each is still written once.
 */
export const CAPTURE_PATHS = {
  listTrafficSources: '/traffic-source',
  createCoreLog: '/core-log/:trafficSourceId',
  composeBatch: '/http-traffic-record/:trafficSourceId/batch',
} as const;

/**
 * What the web page asks for before its script has built the contract's schemas (the token
 * check and the first page of traffic, docs/decisions.md §24.10); contract.ts takes them from here.
 */
export const PAGE_START_PATHS = {
  me: '/auth/me',
  listTraffic: '/http-traffic/:trafficSourceId',
} as const;

/** The text of a path or query value: the contract only puts strings, numbers and booleans there. */
export function scalarText(value: unknown): string {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  throw new TypeError(`not a path or query value: ${typeof value}`);
}

/** `/webhooks/:webhookId` with `{ webhookId: 'x' }` gives `/webhooks/x`. */
export function buildPath(path: string, params: unknown): string {
  return path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = isRecord(params) ? params[name] : undefined;
    if (value === undefined || value === null || value === '') throw new Error(`missing path parameter ${name}`);
    return encodeURIComponent(scalarText(value));
  });
}
