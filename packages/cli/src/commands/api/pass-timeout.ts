/**
 * How long `api infer` and `api check` wait for the daemon: each reads every stored exchange of
 * the window, which takes far longer than the 30 s of other requests
 * (docs/performance.md#reads-and-indexes).
 */
export const PASS_TIMEOUT_MS = 15 * 60_000;
