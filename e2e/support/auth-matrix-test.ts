import { afterAll, beforeAll, expect, it } from 'vitest';
import { authorizationMatrix } from './auth-matrix.js';
import { startDaemon, tempHome, type SpawnedDaemon } from './binaries.js';

/**
 * Every operation of the live /openapi.json × token conditions, against the built daemon: each
 * status must be the one docs/api.md's rules give, and one the operation documents.
 */
export function defineMatrixTest(badTokenSet: 'sample' | 'all', timeoutMs: number): void {
  const home = tempHome('tapline-matrix-');
  let daemon: SpawnedDaemon;
  beforeAll(async () => {
    daemon = await startDaemon(home.path, ['--allow-private-webhooks', '--no-webhook-delivery']);
  });
  afterAll(async () => {
    await daemon?.stop();
    home.remove();
  });

  it(
    `answers every route × token condition (${badTokenSet} of the bad tokens) as documented, and lists nothing it must not`,
    async () => {
      const { cells, leaks } = await authorizationMatrix(daemon, badTokenSet);
      const mismatches = cells.filter((c) => c.actual !== c.expected || !c.documented);
      process.stdout.write(`authorization matrix: ${cells.length} cells, ${mismatches.length} mismatches\n`);
      expect(cells.length).toBeGreaterThan(400);
      expect(mismatches).toEqual([]);
      expect(leaks).toEqual([]);
    },
    timeoutMs,
  );
}
