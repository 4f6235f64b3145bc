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

/** `/webhooks/:webhookId` with `{ webhookId: 'x' }` gives `/webhooks/x`. */
export function buildPath(path: string, params: Record<string, unknown> | undefined): string {
  return path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined || value === null || value === '') throw new Error(`missing path parameter ${name}`);
    return encodeURIComponent(String(value));
  });
}
