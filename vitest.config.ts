import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { postgresForTests } from './packages/testkit/src/postgres/availability.js';

/**
 * Two projects. `sqlite`: every test (but `alone`'s, below), the daemon's on SQLite. `postgres`: the daemon's in-process
 * tests again, each on a PostgreSQL database of its own (packages/testkit: the harness reads
 * TAPLINE_TEST_BACKEND; the globalSetup starts a throwaway cluster, or uses TAPLINE_TEST_PG).
 * `*.sqlite.test.ts` and `*.postgres.test.ts` hold what only means something on one engine.
 *
 * Files run in one fork per core. A third project, `alone`, holds the tests whose figures are the
 * machine's (resident memory, recovery within a time after a database restart): it runs after the
 * other two have finished, one file at a time, so that no other test shares the cores with them.
 * The bench's quick mode is not among them: it checks that every scenario runs and writes finite
 * figures, never a figure against a bound, and its 140 s alone made the run too long.
 */
const postgres = postgresForTests(process.env);

const ALONE = [
  'e2e/memory.test.ts',
  'e2e/stalled-streams.test.ts',
  ...(postgres.available ? ['e2e/db-restart.postgres.test.ts', 'e2e/memory.postgres.test.ts'] : []),
];

const aloneProject: TestProjectInlineConfiguration = {
  extends: true,
  test: {
    name: 'alone',
    include: ALONE,
    sequence: { groupOrder: 1 },
    poolOptions: { forks: { singleFork: true } },
  },
};

const sqliteProject: TestProjectInlineConfiguration = {
  extends: true,
  test: {
    name: 'sqlite',
    include: ['packages/*/src/**/*.test.{ts,tsx}', 'e2e/**/*.test.ts'],
    exclude: [...configDefaults.exclude, '**/*.postgres.test.ts', ...ALONE],
    // Says at the end of the run, where it is seen, that the PostgreSQL half did not run.
    ...(postgres.available
      ? {}
      : {
          globalSetup: ['packages/testkit/src/postgres/notice.ts'],
          provide: { taplinePostgresMissing: postgres.reason },
        }),
  },
};

const postgresProject: TestProjectInlineConfiguration = {
  extends: true,
  test: {
    name: 'postgres',
    // With the e2e that only mean something on PostgreSQL: several daemons on one database.
    include: ['packages/daemon/src/**/*.test.ts', 'e2e/**/*.postgres.test.ts'],
    exclude: [...configDefaults.exclude, '**/*.sqlite.test.ts', ...ALONE],
    env: { TAPLINE_TEST_BACKEND: 'postgres' },
    globalSetup: ['packages/testkit/src/postgres/global-setup.ts'],
  },
};

export default defineConfig({
  test: {
    // Native better-sqlite3 and spawned binaries: separate processes keep tests apart.
    pool: 'forks',
    // Vitest's default leaves a core free (one fork on a 2-core CI machine); the tests mostly wait
    // on spawned binaries and sockets, so a fork per core runs two files at once there.
    maxWorkers: availableParallelism(),
    minWorkers: 1,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: postgres.available ? [sqliteProject, postgresProject, aloneProject] : [sqliteProject, aloneProject],
  },
});
