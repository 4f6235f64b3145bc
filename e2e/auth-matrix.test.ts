import { defineMatrixTest } from './support/auth-matrix-test.js';

/** A sample of the bad tokens on every operation; `pnpm test:soak` runs them all (e2e/soak/auth-matrix.soak.ts). */
defineMatrixTest('sample', 150_000);
