import { afterAll, expect, it } from 'vitest';
import { tempHome } from '../support/binaries.js';
import { crashRun } from '../support/crash-run.js';

/** The long crash test: 4 clients, 7 kills while ingesting plus one during start-up. */
const home = tempHome('tapline-crash-soak-');
afterAll(() => home.remove());

it('keeps every acknowledged record, once, and never half a batch, across eight SIGKILLs; core logs too', async () => {
  const report = await crashRun(home.path, { clients: 4, kills: 7, acksPerRound: 5_000 });
  process.stdout.write(
    `crash soak: ${JSON.stringify({ ...report, lost: report.lost.length, duplicated: report.duplicated.length, partialBatches: report.partialBatches.length, changed: report.changed.length, coreLogs: { ...report.coreLogs, lost: report.coreLogs.lost.length, duplicated: report.coreLogs.duplicated.length, changed: report.coreLogs.changed.length } })}\n`,
  );
  expect(report).toMatchObject({ lost: [], duplicated: [], partialBatches: [], changed: [], integrity: 'ok' });
  expect(report.coreLogs).toMatchObject({ lost: [], duplicated: [], changed: [] });
  expect(report.coreLogs.acknowledged).toBeGreaterThanOrEqual(500);
  expect(report.acknowledged).toBeGreaterThanOrEqual(40_000);
});
