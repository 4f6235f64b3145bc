import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { type FreshDatabase, freshDatabase } from '@tapline/testkit/daemon';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig } from './config.js';
import { serve, StartError } from './serve.js';

/**
 * The daemon started on PostgreSQL as `taplined --db postgres://…` starts it (PostgreSQL only:
 * the password is what is at stake, and a SQLite file has none). The run's server takes a
 * password on TCP, so the URL carries a real one.
 */
describe('taplined --db postgres://', () => {
  let fresh: FreshDatabase;
  let home: string;
  let output: string;

  beforeEach(async () => {
    fresh = await freshDatabase();
    home = mkdtempSync(join(tmpdir(), 'tapline-serve-'));
    output = '';
  });
  afterEach(async () => {
    await fresh.drop();
    rmSync(home, { recursive: true, force: true });
  });

  const password = () => decodeURIComponent(new URL(fresh.locator).password);
  const start = (database: string) =>
    serve({
      host: '127.0.0.1',
      port: 0,
      home,
      database,
      dbPool: 3,
      config: defaultConfig('0.0.0-test'),
      logger: pino(
        { level: 'trace' },
        new Writable({ write: (chunk: Buffer, _encoding, done) => void ((output += chunk.toString()), done()) }),
      ),
      announce: (line) => void (output += `${line}\n`),
    });

  it('names the backend, host and database in its startup line, its log and /healthz, and never the password', async () => {
    expect(password().length).toBeGreaterThan(8);
    const daemon = await start(fresh.locator);
    try {
      const database = new URL(fresh.locator).pathname.slice(1);
      expect(output).toContain(
        `taplined listening on ${daemon.url} (database: postgres 127.0.0.1:${new URL(fresh.locator).port}/${database})`,
      );
      expect(output).toContain('"database":"postgres"');
      const health = await fetch(`${daemon.url}/healthz`);
      const text = await health.text();
      expect(JSON.parse(text)).toMatchObject({
        status: 'ok',
        version: '0.0.0-test',
        database: 'postgres',
        storage: { retentionMs: 30 * 86_400_000 },
      });
      expect(text + output).not.toContain(password());
    } finally {
      await daemon.stop();
    }
  });

  it('refuses to start when the server refuses the login, saying why in one line without the password', async () => {
    const url = new URL(fresh.locator);
    url.password = `${password()}-wrong`;
    const error = await start(url.toString()).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(StartError);
    const { message } = error as Error;
    expect(message).toMatch(
      /^PostgreSQL at 127\.0\.0\.1:\d+\/\w+: password authentication failed for user "postgres"$/,
    );
    expect(message + output).not.toContain(password());
  });
});
