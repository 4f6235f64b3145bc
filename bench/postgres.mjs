// Tapline on PostgreSQL beside SQLite in the same bench run: a throwaway cluster (the test kit's,
// on loopback on this machine, as the targets of issue 13 assume) per scenario, and a daemon
// started on it with `--db`. The cluster keeps PostgreSQL's durable defaults (fsync and
// synchronous commit on, as a team's server runs), not the tests' fast settings: every
// acknowledged record is on disk when the figures count it. When no cluster can start here, the scenario reports its PostgreSQL
// figures as skipped (`skipped: { '(postgres)': why }`), never as a silent gap.
import { startDaemon, tempHome } from './lib.mjs';
import { importTs } from './ts.mjs';

export const PG = '(postgres)';

/**
 * Starts a cluster and a daemon on it (`args`: more flags): { daemon, stop() }, or { unavailable: why }.
 * `prepare(url, home)`, if given, runs on the empty database and the daemon's home before the daemon starts.
 */
export async function startPostgresDaemon(root, log, args = [], prepare = undefined) {
  let cluster;
  try {
    const { clusterUnavailable, startCluster } = await importTs(root, 'packages/testkit/src/postgres/cluster.ts');
    const why = clusterUnavailable();
    if (why) return { unavailable: why };
    cluster = await startCluster({ durable: true });
  } catch (error) {
    return {
      unavailable: `PostgreSQL could not start: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    };
  }
  const home = tempHome();
  try {
    await prepare?.(cluster.url, home.path);
    const daemon = await startDaemon(root, home.path, ['--db', cluster.url, ...args]);
    log('Tapline on a throwaway PostgreSQL cluster on this machine');
    return { daemon, url: cluster.url, stop: async () => (await daemon.stop(), await cluster.stop(), home.remove()) };
  } catch (error) {
    await cluster.stop();
    home.remove();
    throw error;
  }
}
