/**
 * What no start runs, and the first request, command or task that needs it loads: zod (§20.26),
 * the contract with its schemas (§20.23) and the OpenAPI document made of them. From the sources
 * each is an `import()`; the daemon's build makes this module a second file of the bundle,
 * dist/taplined-schemas.cjs, and gives every other module first-use-file.ts in its place, which
 * reads that file, through a code cache of its own, on the first call (docs/decisions.md §20.27).
 * Inside that file each part is still initialised by its own first call.
 */
export const firstUse = {
  schemas: () => import('./http/schemas-loaded.js'),
  zod: () => import('./zod-loaded.js'),
  openapi: () => import('./meta/openapi.js'),
};

export type FirstUse = typeof firstUse;
