/**
 * How long `api infer` and `api check` wait for the daemon: each reads every stored exchange of
 * the window (100,000 took 36 s on a loaded 2-core machine), far past the 30 s of other requests.
 */
export const PASS_TIMEOUT_MS = 15 * 60_000;
