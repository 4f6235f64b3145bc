import type { EndpointName } from '@tapline/shared';
import { firstUse } from '../first-use.js';
import { loadOnce } from '../load-once.js';

/** The contract with its schemas (`@tapline/shared`) and what is made of them. */
export type Schemas = typeof import('./schemas-loaded.js');

let loaded: Schemas | undefined;

/**
 * The contract's schemas, built by the first request or task that needs them and not by the start
 * (docs/decisions.md §20.23): a start mounts every route from `@tapline/shared/lean`, which builds
 * no schema, and its first answer needs none. In the daemon's bundle they are in its second file,
 * read on first use (first-use.ts, §20.27); a load that fails is tried again by the next call
 * (load-once.ts). Once loaded, `loadedSchemas()` gives them without a wait.
 */
export const schemas: () => Promise<Schemas> = loadOnce(() => firstUse.schemas().then((module) => (loaded = module)));

/** The schemas when a request or task has loaded them; undefined before that. */
export const loadedSchemas = (): Schemas | undefined => loaded;

/** The contract's endpoint of this name, with its schemas. */
export async function endpointNamed<N extends EndpointName>(name: N): Promise<Schemas['contract'][N]> {
  return (loaded ?? (await schemas())).contract[name];
}
