import { closeSync, copyFileSync, existsSync, openSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { composeBody, until } from '@tapline/testkit';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, type SpawnedDaemon, startDaemon, TAPLINED, tempHome } from './support/binaries.js';
import { createSource } from './support/compose.js';

/** The built taplined with `args`; never throws on a non-zero exit. */
async function taplined(args: readonly string[]) {
  const result = await execa('node', [TAPLINED, ...args], { env: cleanEnv(), extendEnv: false, reject: false });
  return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
}

async function postBatch(daemon: SpawnedDaemon, sourceId: string, count: number): Promise<number> {
  const body = Array.from({ length: count }, (_, i) =>
    composeBody(sourceId, {
      pathnameUrl: `/api/items/${i % 5}`,
      status: i % 9 === 0 ? 500 : 200,
      responseBody: { i, note: 'x'.repeat(200) },
    }),
  );
  const response = await fetch(`${daemon.url}/http-traffic-record/${sourceId}/batch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await response.text();
  return response.status;
}

/** Batches posted back to back until stopped: the daemon ingests all along. */
function load(daemon: SpawnedDaemon, sourceId: string) {
  let running = true;
  let posted = 0;
  const failures: number[] = [];
  const loop = (async () => {
    while (running) {
      const status = await postBatch(daemon, sourceId, 50);
      if (status === 201) posted += 50;
      else failures.push(status);
    }
  })();
  return {
    posted: () => posted,
    async stop() {
      running = false;
      await loop;
      return { posted, failures };
    },
  };
}

async function total(daemon: SpawnedDaemon, sourceId: string): Promise<number> {
  const response = await fetch(`${daemon.url}/http-traffic/${sourceId}`, {
    headers: { authorization: `Bearer ${daemon.token}` },
  });
  return ((await response.json()) as { meta: { total: number } }).meta.total;
}

describe('taplined prune, backup and check beside a running daemon', () => {
  const home = tempHome('tapline-storage-');
  const other = tempHome('tapline-storage-copy-');
  let daemon: SpawnedDaemon;
  let sourceId: string;

  beforeAll(async () => {
    daemon = await startDaemon(home.path);
    sourceId = await createSource(daemon.url, daemon.token, 'storage');
  });
  afterAll(async () => {
    await daemon.stop();
    home.remove();
    other.remove();
  });

  it('prune deletes what is older than --before while the daemon ingests; no compose fails and the totals stay exact', async () => {
    for (let i = 0; i < 6; i++) expect(await postBatch(daemon, sourceId, 50)).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const cutoff = new Date().toISOString();
    const ingest = load(daemon, sourceId);
    const pruned = await taplined(['prune', '--before', cutoff, '--home', home.path]);
    const { posted, failures } = await ingest.stop();
    expect(pruned.stderr).toBe('');
    expect(pruned.exitCode).toBe(0);
    expect(pruned.stdout).toMatch(
      /^removed 300 entries, 0 core logs, 0 webhook deliveries, 0 pathnames, 0 domains created before /,
    );
    expect(failures).toEqual([]);
    expect(await total(daemon, sourceId)).toBe(posted);
    const checked = await taplined(['check', '--home', home.path]);
    expect(checked).toMatchObject({ exitCode: 0, stderr: '' });
  });

  it('backup under load writes a consistent copy that another daemon opens and check passes', async () => {
    const copy = join(other.path, 'copy.db');
    const ingest = load(daemon, sourceId);
    await until(() => ingest.posted() >= 200, '200 records posted');
    const backup = await taplined(['backup', copy, '--home', home.path]);
    await ingest.stop();
    expect(backup.stderr).toBe('');
    expect(backup.exitCode).toBe(0);
    expect(backup.stdout).toMatch(/^backed up [\d.]+ [KMG]?B to .*copy\.db in [\d.]+ s$/);
    expect(existsSync(`${copy}.partial`)).toBe(false);
    expect(statSync(copy).mode & 0o777).toBe(0o600);
    expect(await taplined(['check', '--db', copy])).toMatchObject({ exitCode: 0, stdout: `ok: ${copy}` });

    // The copy holds the signing key, so the original's token works on a daemon started on it.
    copyFileSync(join(home.path, 'token'), join(other.path, 'token'));
    const restored = await startDaemon(other.path, ['--db', copy]);
    try {
      const copied = await total(restored, sourceId);
      expect(copied).toBeGreaterThan(0);
      expect(copied).toBeLessThanOrEqual(await total(daemon, sourceId));
    } finally {
      await restored.stop();
    }
    expect(await taplined(['check', '--db', copy])).toMatchObject({ exitCode: 0 });

    // A deliberately damaged page: check says so and exits 1.
    const damaged = join(other.path, 'damaged.db');
    copyFileSync(copy, damaged);
    const pages = Math.floor(statSync(damaged).size / 4096);
    const fd = openSync(damaged, 'r+');
    writeSync(fd, Buffer.alloc(4096 * 2, 0x5a), 0, 4096 * 2, Math.floor(pages / 2) * 4096);
    closeSync(fd);
    const broken = await taplined(['check', '--db', damaged]);
    expect(broken.exitCode).toBe(1);
    expect(broken.stdout).toMatch(/^\d+ problems in .*damaged\.db$/);
    expect(broken.stderr).toMatch(/^taplined check: /);
  });

  it('refuses bad usage with a message and exit code 2, and an existing backup file with 1', async () => {
    expect(await taplined(['prune', '--home', home.path])).toMatchObject({
      exitCode: 2,
      stderr: 'taplined: give one of --older-than DURATION or --before ISO-TIME',
    });
    const badTime = await taplined(['prune', '--before', 'yesterday', '--home', home.path]);
    expect(badTime.exitCode).toBe(2);
    expect(badTime.stderr).toContain('--before takes an ISO 8601 time');
    expect(await taplined(['prune', '--older-than', '7d', '--source', 'nope', '--home', home.path])).toMatchObject({
      exitCode: 2,
    });
    const existing = join(other.path, 'existing.db');
    copyFileSync(join(home.path, 'token'), existing);
    expect(await taplined(['backup', existing, '--home', home.path])).toMatchObject({
      exitCode: 1,
      stderr: `taplined: ${existing} already exists; remove it or choose another file`,
    });
  });
});
