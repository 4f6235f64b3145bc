/**
 * The V8 flags a start runs under, set by the launcher (launch.ts) before it compiles the bundle,
 * and under which the code cache is made (`underStartFlags`, heap-limits.ts): V8 refuses a cache
 * made under flags other than its own at the time.
 * - `--expose-gc`: the daemon sets it at start (http/reclaim.ts); `gc` reaches only contexts made later.
 * - `--semi-space-growth-factor`: the young generation starts at one 1 MiB semi-space, and V8
 *   doubles it only as a start's surviving objects fill it, so a start made six scavenges of its
 *   module initialisation (the contract's schemas, Express, Kysely) before its first answer. Grown
 *   eight times at once, each semi-space reaches half the lean heap's cap (heap-limits.ts) at its
 *   first growth, and a start makes three (docs/performance.md, "Cold start: a start's
 *   collections").
 */
export const START_GROWTH_FACTOR = 8;

/** V8's own growth factor, which a daemon without the lean heap goes back to once it listens. */
export const V8_GROWTH_FACTOR = 2;

export const START_FLAGS = `--expose-gc --semi-space-growth-factor=${START_GROWTH_FACTOR}`;
