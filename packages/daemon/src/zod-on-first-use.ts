import { firstUse } from './first-use.js';
import { loadOnce } from './load-once.js';

/** zod itself, as `import { z } from 'zod'` gives it. */
export type Zod = (typeof import('./zod-loaded.js'))['z'];

/**
 * zod, loaded by the first request, command or conflict that checks something with it, never by a
 * start (docs/decisions.md §20.26). In the daemon's bundle zod is in its second file, read on first
 * use (first-use.ts, §20.27), so zod's code is not even read before that; the contract's schemas
 * load it the same way (`http/schemas.ts`, §20.23). A load that fails is tried again by the next
 * call (load-once.ts).
 */
export const zodOnFirstUse: () => Promise<Zod> = loadOnce(() => firstUse.zod().then((module) => module.z));

/** A schema of the daemon's own, built once by the first call, with zod loaded then. */
export function schemaOnFirstUse<T>(build: (z: Zod) => T): () => Promise<T> {
  return loadOnce(() => zodOnFirstUse().then(build));
}
