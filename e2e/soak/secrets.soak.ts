import { expect, it } from 'vitest';
import { scanForSecrets } from '../support/secrets-scan.js';

/**
 * The long secrets scan: nearly two thousand planted values, through every way in and every way
 * out; six rounds of bodies past the capture limit through every capture client (issue 24).
 */
it('lets none of nearly two thousand planted secrets out, under umask 000', async () => {
  const report = await scanForSecrets(48);
  process.stdout.write(
    `secrets soak: ${JSON.stringify({ planted: report.planted, leaks: report.leaks.length, places: report.places })}\n`,
  );
  expect(report.planted).toBeGreaterThan(1800);
  expect(report.leaks).toEqual([]);
  expect(report.places['database rows']).toBeGreaterThan(6_000_000);
  // Logs carry no traffic (not even at trace level); they do carry the refused tokens' audit lines.
  expect(report.showTraffic).toEqual(['answers', 'cli', 'database', 'database rows', 'exports', 'stream', 'webhooks']);
  expect(report.auditLines).toBeGreaterThanOrEqual(4);
  expect(Object.values(report.modes)).toEqual(['700', '600', '600', '600', '600', '600', '600']);
});
