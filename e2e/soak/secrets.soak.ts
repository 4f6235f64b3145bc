import { expect, it } from 'vitest';
import { scanForSecrets } from '../support/secrets-scan.js';

/** The long secrets scan: about a thousand planted values, through every way in and every way out. */
it('lets none of about a thousand planted secrets out, under umask 000', async () => {
  const report = await scanForSecrets(48);
  process.stdout.write(`secrets soak: ${JSON.stringify({ planted: report.planted, leaks: report.leaks.length, places: report.places })}\n`);
  expect(report.planted).toBeGreaterThan(1000);
  expect(report.leaks).toEqual([]);
  // Logs carry no traffic (not even at trace level); they do carry the refused tokens' audit lines.
  expect(report.showTraffic).toEqual(['answers', 'cli', 'database', 'stream', 'webhooks']);
  expect(report.auditLines).toBeGreaterThanOrEqual(4);
  expect(Object.values(report.modes)).toEqual(['700', '600', '600', '600', '600', '600', '600']);
});
