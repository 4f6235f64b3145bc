import { defineConfig } from 'vitest/config';

/** `pnpm test:soak`: the long runs of the crash test, the abuse replay and the scans (minutes, not seconds). */
export default defineConfig({
  test: {
    include: ['e2e/soak/**/*.soak.ts'],
    pool: 'forks',
    // One at a time: each measures a daemon under load, and two would disturb each other's figures.
    fileParallelism: false,
    testTimeout: 30 * 60_000,
    hookTimeout: 120_000,
  },
});
