import { expect, it } from 'vitest';
import { scanForSecrets } from './support/secrets-scan.js';

/** The short secrets scan; `pnpm test:soak` runs the long one (e2e/soak/secrets.soak.ts). */
it('lets no planted secret out through logs at trace level, answers, the stream, webhooks, the CLI or the database files, under umask 000', async () => {
  const report = await scanForSecrets(8);
  expect(report.planted).toBeGreaterThan(150);
  expect(report.leaks).toEqual([]);
  // Logs carry no traffic (not even at trace level); they do carry the refused tokens' audit lines.
  expect(report.showTraffic).toEqual(['answers', 'cli', 'database', 'stream', 'webhooks']);
  expect(report.auditLines).toBeGreaterThanOrEqual(4);
  expect(report.modes).toEqual({ home: '700', token: '600', 'daemon.json': '600', 'tapline.db': '600', 'tapline.db-wal': '600', 'tapline.db-shm': '600', 'cli credentials': '600' });
}, 120_000);
