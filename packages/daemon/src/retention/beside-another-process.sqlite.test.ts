import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { ApiError, contract } from '@tapline/shared';
import {
  composeBody,
  createSource,
  expectRollupExact,
  postRecords,
  type Harness,
  startHarness,
} from '@tapline/testkit/daemon';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../clock.js';
import { openDatabase } from '../db/open.js';
import { pruneCommand } from './admin.js';

/**
 * Another process on the same SQLite file, as `taplined prune` is beside a running daemon (or the
 * daemon beside it), written in plain JavaScript so that it needs no build. `probe`: a write
 * transaction (BEGIN IMMEDIATE, COMMIT) every 10 ms, with the daemon's 5 s busy timeout, timing
 * how long each waited for the lock and when it got it. `hold`: takes the write lock for 15 ms,
 * leaves it for 30 ms, again and again. On stdin's end it prints what it saw as JSON and exits.
 */
const OTHER_PROCESS = `
const Database = require('better-sqlite3');
const [file, mode] = process.argv.slice(1);
const db = new Database(file);
db.pragma('busy_timeout = 5000');
const waits = [];
const at = [];
let failures = 0;
let stop = false;
process.stdin.on('end', () => (stop = true)).resume();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
(async () => {
  process.stdout.write('ready\\n');
  while (!stop) {
    const started = performance.now();
    try {
      db.exec('begin immediate');
      waits.push(performance.now() - started);
      at.push(Date.now());
      if (mode === 'hold') while (performance.now() < started + 15);
      db.exec('commit');
    } catch {
      failures++;
    }
    await sleep(mode === 'hold' ? 30 : 10);
  }
  db.close();
  process.stdout.write(JSON.stringify({ waits, at, failures }) + '\\n');
})();
`;

const DAEMON_PACKAGE = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** What the other process saw: each write's wait for the lock (ms), when it got it (epoch ms), and failed writes. */
interface Seen {
  waits: number[];
  at: number[];
  failures: number;
}

interface Other {
  stop(): Promise<Seen>;
}

async function anotherProcess(file: string, mode: 'probe' | 'hold'): Promise<Other> {
  // Its cwd is the daemon's package, where better-sqlite3 resolves.
  const child: ChildProcessByStdio<Writable, Readable, null> = spawn(
    process.execPath,
    ['-e', OTHER_PROCESS, file, mode],
    { cwd: DAEMON_PACKAGE, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await expect.poll(() => out, { timeout: 10_000 }).toContain('ready');
  return {
    async stop() {
      child.stdin.end();
      await exited;
      return JSON.parse(out.slice(out.indexOf('\n') + 1)) as Seen;
    },
  };
}

describe('beside another process on the same SQLite file', () => {
  let dir: string;
  let file: string;
  let h: Harness | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tapline-beside-'));
    file = join(dir, 'tapline.db');
  });
  afterEach(async () => {
    await h?.close();
    h = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('taplined prune leaves the write lock free between its transactions: a writer in another process gets in every time, soon', async () => {
    h = await startHarness({ database: file, pruner: { start: false } });
    const { client } = await h.user();
    const source = await createSource(client);
    for (let i = 0; i < 30; i++) await postRecords(client, source.id, 200, i * 200);
    const cutoff = new Date(Date.now() + 1).toISOString();
    await h.close();
    h = undefined;

    const probe = await anotherProcess(file, 'probe');
    const opened = openDatabase(file);
    let report: string;
    const pruning = { from: 0, to: 0 };
    try {
      await opened.migrate();
      pruning.from = Date.now();
      report = await pruneCommand(opened.db, opened.dialect, systemClock, { before: cutoff });
      pruning.to = Date.now();
      await expectRollupExact(opened.db);
    } finally {
      await opened.close();
    }
    const { waits, at, failures } = await probe.stop();

    expect(report).toMatch(/^removed 6,000 entries, /);
    expect(failures).toBe(0);
    // The prune leaves a gap after each of its transactions (batches sized to about 10 ms, and
    // vacuum slices), and the probe, writing every 10 ms, gets in during those gaps (more than
    // 100 times here). Left only a turn of the event loop, it was starved: its busy handler,
    // asleep between looks, got in 3 to 9 times in the whole prune.
    expect(at.filter((t) => t >= pruning.from && t <= pruning.to).length).toBeGreaterThanOrEqual(30);
    // The longest the prune kept it out: one of its transactions or vacuum slices, and one
    // of the busy handler's sleeps. Generous for this shared machine; starved, it was the prune.
    expect(Math.max(...waits)).toBeLessThan(1_000);
  });

  it('ingest that creates names waits for another process to finish its write, instead of failing at once', async () => {
    h = await startHarness({ database: file, pruner: { start: false } });
    const { client } = await h.user();
    const source = await createSource(client);
    const holder = await anotherProcess(file, 'hold');
    const statuses: number[] = [];
    try {
      // Each compose names a new pathname: the ingest looks it up, then creates it.
      for (let i = 0; i < 60; i++) {
        const body = composeBody(source.id, { pathnameUrl: `/api/new/${i}` });
        const status = await client.call(contract.composeRecord, { params: { trafficSourceId: source.id }, body }).then(
          () => 201,
          (error: unknown) => (error instanceof ApiError ? error.status : 0),
        );
        statuses.push(status);
      }
    } finally {
      const { failures } = await holder.stop();
      expect(failures).toBe(0);
    }
    expect(statuses.filter((s) => s !== 201)).toEqual([]);
    expect((await client.call(contract.listTraffic, { params: { trafficSourceId: source.id } })).meta.total).toBe(60);
  });
});
