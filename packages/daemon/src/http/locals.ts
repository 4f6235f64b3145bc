import type { Principal } from '../auth/tokens.js';

/**
 * What a request carries from one middleware to the next, typed once through Express's own
 * `Locals` interface (declaration merging), so no handler reads `res.locals` by cast.
 */
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- Express declares Locals in this namespace; merging needs it.
  namespace Express {
    interface Locals {
      /** The token's principal, set by authentication on endpoints that need a token. */
      principal?: Principal;
      /** The handler's promise, which stopping waits for (inflight.ts). */
      work?: Promise<unknown>;
    }
  }
}
