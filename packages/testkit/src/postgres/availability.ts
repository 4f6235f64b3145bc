import { clusterUnavailable } from './cluster.js';

export type PostgresForTests = { readonly available: true } | { readonly available: false; readonly reason: string };

/**
 * Whether this run tests the daemon on PostgreSQL too: when `TAPLINE_TEST_PG` names a server, or
 * a throwaway cluster can be made here. With `CI` set, a run without PostgreSQL is an error: CI
 * installs it (.ci/run), so its absence there is a broken set-up, never a reason to test less.
 */
export function postgresForTests(
  env: NodeJS.ProcessEnv,
  unavailable: () => string | null = clusterUnavailable,
): PostgresForTests {
  if (env.TAPLINE_TEST_PG) return { available: true };
  const reason = unavailable();
  if (reason === null) return { available: true };
  if (env.CI) throw new Error(`CI must test on PostgreSQL too, and cannot: ${reason}`);
  return { available: false, reason };
}
