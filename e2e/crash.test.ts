import { afterAll, expect, it } from 'vitest';
import { crashRun } from './support/crash-run.js';
import { tempHome } from './support/binaries.js';

/** The short crash test; `pnpm test:soak` runs the long one (e2e/soak/crash.soak.ts). */
const home = tempHome('tapline-crash-');
afterAll(() => home.remove());

it('keeps every acknowledged record, once, and never half a batch, across SIGKILLs; core logs and route statistics too', async () => {
  const report = await crashRun(home.path, { clients: 3, kills: 2, acksPerRound: 200 });
  expect(report).toMatchObject({ lost: [], duplicated: [], partialBatches: [], changed: [], integrity: 'ok' });
  // The numbers commit with the entries they count (issue 26): a SIGKILL leaves neither without the other.
  expect(report.statistics.fromStats).toEqual(report.statistics.fromEntries);
  expect(report.statistics.fromStats.length).toBeGreaterThanOrEqual(2);
  // Within 1 %, plus the 0.001 ms the answer is rounded to.
  for (const p99 of report.statistics.p99s) expect(Math.abs(p99 - 1)).toBeLessThanOrEqual(0.0111);
  expect(report.coreLogs).toMatchObject({ lost: [], duplicated: [], changed: [] });
  expect(report.coreLogs.acknowledged).toBeGreaterThanOrEqual(10);
  expect(report.acknowledged).toBeGreaterThanOrEqual(600);
  expect(report.stored).toBeGreaterThanOrEqual(report.acknowledged);
}, 120_000);
