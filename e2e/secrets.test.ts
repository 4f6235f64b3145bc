import { expect, it } from 'vitest';
import { scanForSecrets } from './support/secrets-scan.js';

/**
 * The short secrets scan; `pnpm test:soak` runs the long one (e2e/soak/secrets.soak.ts). Issue 24
 * (problem 6): it includes bodies past the capture limit, cut JSON, forms and multipart through the
 * built proxy, the built @tapline/node, composes, `/ingest-log`, OTLP and `tapline import`.
 */
it('lets no planted secret out through logs at trace level, answers, the stream, webhooks, the CLI, HAR exports, body~ or the database, under umask 000', async () => {
  const report = await scanForSecrets(8);
  expect(report.planted).toBeGreaterThan(300);
  expect(report.leaks).toEqual([]);
  // The rows were read decompressed: the captured bodies alone are over a megabyte.
  expect(report.places['database rows']).toBeGreaterThan(1_000_000);
  // Logs carry no traffic (not even at trace level); they do carry the refused tokens' audit lines.
  expect(report.showTraffic).toEqual(['answers', 'cli', 'database', 'database rows', 'exports', 'stream', 'webhooks']);
  expect(report.auditLines).toBeGreaterThanOrEqual(4);
  expect(report.modes).toEqual({
    home: '700',
    token: '600',
    'daemon.json': '600',
    'tapline.db': '600',
    'tapline.db-wal': '600',
    'tapline.db-shm': '600',
    'cli credentials': '600',
  });
}, 300_000);
