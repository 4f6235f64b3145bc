import { join } from 'node:path';
import { contract, createClient, type TaplineClient } from '@tapline/shared';
import { composeBody } from '@tapline/testkit';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, startDaemon, TAPLINED, tempHome } from './support/binaries.js';

/** `taplined copy` as a user runs it: the built binary, between two daemons' files. */
async function taplined(args: readonly string[]) {
  const result = await execa('node', [TAPLINED, ...args], { env: cleanEnv(), extendEnv: false, reject: false, stdin: 'ignore' });
  return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
}

const entries = async (client: TaplineClient, sourceId: string) =>
  (await client.call(contract.listTraffic, { params: { trafficSourceId: sourceId }, query: { limit: 100 } })).data;

describe('taplined copy between SQLite files', () => {
  const from = tempHome();
  const to = tempHome();
  let token: string;
  let sourceId: string;
  let listed: unknown[];

  beforeAll(async () => {
    const daemon = await startDaemon(from.path);
    token = daemon.token;
    const client = createClient({ baseUrl: daemon.url, token });
    sourceId = (await client.call(contract.createTrafficSource, { body: { name: 'shop', trafficDomain: 'shop.example.com' } })).id;
    for (let i = 0; i < 12; i++) await client.call(contract.composeRecord, { params: { trafficSourceId: sourceId }, body: composeBody(sourceId, { pathnameUrl: `/p/${i}` }) });
    listed = await entries(client, sourceId);
    await daemon.stop();
  });
  afterAll(() => {
    from.remove();
    to.remove();
  });

  it('copies the whole history; a daemon on the copy serves the same entries to the same token', async () => {
    const result = await taplined(['copy', '--from', join(from.path, 'tapline.db'), '--to', join(to.path, 'tapline.db'), '--batch-size', '5']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^http_traffic\s+12$/m);
    expect(result.stderr).toContain('copied http_traffic: 12 rows');

    // The copy's own home has no token file: the daemon reads its database from --db, and the
    // token issued by the first daemon is honoured there (tokens and signing key were copied).
    const copy = await startDaemon(from.path, ['--db', join(to.path, 'tapline.db')]);
    try {
      expect(await entries(createClient({ baseUrl: copy.url, token }), sourceId)).toEqual(listed);
    } finally {
      await copy.stop();
    }
  });

  it('draws a progress bar on a terminal', async () => {
    const target = tempHome();
    try {
      // `script` gives the command a pseudo-terminal, as a person at a shell has.
      const command = [process.execPath, TAPLINED, 'copy', '--from', join(from.path, 'tapline.db'), '--to', join(target.path, 'tapline.db')].map((a) => `'${a}'`).join(' ');
      const result = await execa('script', ['-qec', command, '/dev/null'], { env: cleanEnv(), extendEnv: false, reject: false, stdin: 'ignore' });
      expect(result.exitCode).toBe(0);
      expect(String(result.stdout)).toMatch(/copying .*100% \| (\d+)\/\1 rows/);
    } finally {
      target.remove();
    }
  });

  it('refuses to merge into another database (exit 1), a missing source (exit 1) and missing flags (exit 2)', async () => {
    const other = tempHome();
    try {
      await (await startDaemon(other.path)).stop();
      const merged = await taplined(['copy', '--from', join(from.path, 'tapline.db'), '--to', join(other.path, 'tapline.db')]);
      expect(merged.exitCode).toBe(1);
      expect(merged.stderr).toContain('the destination already holds another Tapline database');
      const missing = await taplined(['copy', '--from', join(other.path, 'nothing.db'), '--to', join(other.path, 'new.db')]);
      expect(missing).toMatchObject({ exitCode: 1, stderr: `taplined: there is no database at ${join(other.path, 'nothing.db')}` });
      const usage = await taplined(['copy', '--from', join(from.path, 'tapline.db')]);
      expect(usage.exitCode).toBe(2);
      expect(usage.stderr).toContain("required option '--to <db>' not specified");
    } finally {
      other.remove();
    }
  });
});
