import { defineMatrixTest } from '../support/auth-matrix-test.js';

/** The whole authorization matrix: every bad token of e2e/support/tokens.ts on every operation. */
defineMatrixTest('all', 10 * 60_000);
