import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contract } from '@tapline/shared';
import {
  createSource,
  DAY,
  expectRollupExact,
  type Harness,
  allEntryIds,
  manualClock,
  postRecords,
  startHarness,
} from '@tapline/testkit/daemon';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createPruner, type Pruner } from './pruner.js';
import type { StorageOps } from './storage.js';

// SQLite only: its file shrinks after a prune (incremental vacuum); PostgreSQL's does not.
describe('the size budget', () => {
  let h: Harness;
  afterEach(() => h.close());

  // 4,000 records take more than either even compressed, with compact ids (compact storage); at 2
  // MiB what does not shrink with the entries is a larger share, which one proportional pass left
  // over budget.
  it.each([3, 2])(
    'prunes the oldest entries as soon as ingest crosses --max-db-size (%i MiB); the newest survive, totals stay exact',
    async (mib) => {
      const clock = manualClock('2026-01-01T00:00:00.000Z');
      const budget = mib * 2 ** 20;
      h = await startHarness({
        clock,
        config: { retention: { maxAgeMs: null, maxBytes: budget, everyMs: 3_600_000 } },
      });
      const { client } = await h.user();
      const source = await createSource(client);
      const batches: string[][] = [];
      for (let i = 0; i < 20; i++) {
        batches.push(await postRecords(client, source.id, 200, i * 200));
        clock.advance(60_000);
        await expectRollupExact(h.deps.db);
      }
      await expect
        .poll(async () => (await h.deps.storage.sizeBytes()) <= budget && (await h.pruner.runNow()).entries === 0, {
          timeout: 20_000,
        })
        .toBe(true);
      const kept = new Set(await allEntryIds(client, source.id));
      expect(kept.size).toBeGreaterThan(200);
      expect(kept.size).toBeLessThan(4000);
      for (const id of batches.at(-1) ?? []) expect(kept.has(id)).toBe(true);
      for (const id of batches[0] ?? []) expect(kept.has(id)).toBe(false);
      // Oldest go first: what is kept is a suffix of the ingest order.
      const all = batches.flat();
      const firstKept = all.findIndex((id) => kept.has(id));
      expect(all.slice(firstKept).every((id) => kept.has(id))).toBe(true);
      expect((await client.call(contract.listTraffic, { params: { trafficSourceId: source.id } })).meta.total).toBe(
        kept.size,
      );
      await expectRollupExact(h.deps.db);
    },
  );
});

describe('the file on disk', () => {
  let h: Harness;
  let dir: string;
  afterEach(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('does not grow across ingest / prune cycles, and shrinks after each prune', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tapline-retention-'));
    const file = join(dir, 'tapline.db');
    const onDisk = () => statSync(file).size + (statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0);
    const clock = manualClock('2026-01-01T00:00:00.000Z');
    // Without statistics: their minute rows outlive the entries by design (--stats-retention,
    // docs/statistics.md), so each cycle's new minutes would grow the file; this is about entries.
    h = await startHarness({
      clock,
      database: file,
      pruner: { start: false },
      config: {
        retention: { maxAgeMs: DAY, maxBytes: null, everyMs: 3_600_000 },
        stats: { enabled: false, retentionMs: null },
      },
    });
    const { client } = await h.user();
    const source = await createSource(client);
    expect((await sql<{ auto_vacuum: number }>`pragma auto_vacuum`.execute(h.deps.db)).rows[0]?.auto_vacuum).toBe(2);

    const afterPrune: number[] = [];
    for (let cycle = 0; cycle < 3; cycle++) {
      for (let i = 0; i < 5; i++) await postRecords(client, source.id, 200, i * 200);
      const full = onDisk();
      clock.advance(2 * DAY);
      expect((await h.pruner.runNow()).entries).toBe(1000);
      afterPrune.push(onDisk());
      expect(afterPrune.at(-1)).toBeLessThan(full / 3);
      await expectRollupExact(h.deps.db);
    }
    expect(afterPrune[2]).toBeLessThanOrEqual(afterPrune[0] ?? 0);
    // The truncating checkpoint waits only briefly for other connections, then the connection's
    // own patience is back: ingest still waits out another process's write.
    expect((await sql<{ timeout: number }>`pragma busy_timeout`.execute(h.deps.db)).rows[0]?.timeout).toBe(5000);
  });
});

describe('a budget prune while ingest goes on', () => {
  let h: Harness;
  let pruner: Pruner | undefined;
  afterEach(async () => {
    await pruner?.stop();
    await h.close();
  });

  it('brings the database under budget although the file grew during a pass', async () => {
    const budget = 3 * 2 ** 20;
    h = await startHarness({ pruner: { start: false } });
    const { client } = await h.user();
    const source = await createSource(client);
    for (let i = 0; i < 10; i++) await postRecords(client, source.id, 200, i * 200);
    expect(await h.deps.storage.sizeBytes()).toBeLessThan(budget);

    // Ingest during the first pass of the prune, after its deletes: the file grows meanwhile.
    let ingestDuringPass = true;
    const ops: StorageOps = {
      ...h.deps.storage,
      reclaim: async (pause, signal) => {
        await h.deps.storage.reclaim(pause, signal);
        if (!ingestDuringPass) return;
        ingestDuringPass = false;
        for (let i = 0; i < 8; i++) await postRecords(client, source.id, 200, 4000 + i * 200);
      },
    };
    pruner = createPruner({
      db: h.deps.db,
      dialect: h.deps.dialect,
      clock: h.deps.clock,
      logger: h.deps.logger,
      outages: h.deps.outages,
      bus: h.deps.bus,
      ops,
      policy: { maxAgeMs: null, maxBytes: budget, everyMs: 3_600_000 },
    });
    pruner.start();
    for (let i = 0; i < 10; i++) await postRecords(client, source.id, 200, 2000 + i * 200);
    // No more ingest, no clock round: the prune that the commits started must finish the job.
    await expect
      .poll(async () => !ingestDuringPass && (await h.deps.storage.sizeBytes()) <= budget, { timeout: 15_000 })
      .toBe(true);
    await expectRollupExact(h.deps.db);
  });
});
