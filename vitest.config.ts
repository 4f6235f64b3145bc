import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { postgresForTests } from './packages/testkit/src/postgres/availability.js';

/**
 * Two projects. `sqlite`: every test, the daemon's on SQLite. `postgres`: the daemon's in-process
 * tests again, each on a PostgreSQL database of its own (packages/testkit: the harness reads
 * TAPLINE_TEST_BACKEND; the globalSetup starts a throwaway cluster, or uses TAPLINE_TEST_PG).
 * `*.sqlite.test.ts` and `*.postgres.test.ts` hold what only means something on one engine.
 */
const postgres = postgresForTests(process.env);

const sqliteProject: TestProjectInlineConfiguration = {
  extends: true,
  test: {
    name: 'sqlite',
    include: ['packages/*/src/**/*.test.{ts,tsx}', 'e2e/**/*.test.ts'],
    exclude: [...configDefaults.exclude, '**/*.postgres.test.ts'],
    // Says at the end of the run, where it is seen, that the PostgreSQL half did not run.
    ...(postgres.available ? {} : { globalSetup: ['packages/testkit/src/postgres/notice.ts'], provide: { taplinePostgresMissing: postgres.reason } }),
  },
};

const postgresProject: TestProjectInlineConfiguration = {
  extends: true,
  test: {
    name: 'postgres',
    include: ['packages/daemon/src/**/*.test.ts'],
    exclude: [...configDefaults.exclude, '**/*.sqlite.test.ts'],
    env: { TAPLINE_TEST_BACKEND: 'postgres' },
    globalSetup: ['packages/testkit/src/postgres/global-setup.ts'],
  },
};

export default defineConfig({
  test: {
    // Native better-sqlite3 and spawned binaries: separate processes keep tests apart.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: postgres.available ? [sqliteProject, postgresProject] : [sqliteProject],
  },
});
