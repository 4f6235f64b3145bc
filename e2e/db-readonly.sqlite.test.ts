import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { type SpawnedDaemon, startDaemon, tempHome } from './support/binaries.js';
import { createSource } from './support/compose.js';
import {
  badRefusals,
  composeUntil,
  eventually,
  type Outcome,
  outageLines,
  stackTraces,
  storedIds,
} from './support/outage.js';

/**
 * The SQLite counterpart of db-restart.postgres.test.ts: the database's folder and files become
 * read-only under load, then writable again. Tests run as root, whom permission bits do not stop,
 * so read-only is the immutable attribute (`chattr +i`, which binds root too, on ext4, xfs, btrfs
 * and tmpfs) on the folder, the database file and its write-ahead log. Not on the `-shm` index:
 * SQLite maps it into memory, and a write to an immutable mapping is a SIGBUS, not an error.
 * A write already in the log may still succeed; what matters is no 500, no exit and no loss.
 */
describe('the database file becoming read-only under load (built taplined on SQLite)', () => {
  const home = tempHome('tapline-readonly-');
  const locked = [home.path, join(home.path, 'tapline.db'), join(home.path, 'tapline.db-wal')];
  let daemon: SpawnedDaemon | undefined;
  const chattr = (flag: '+i' | '-i') => execa('chattr', [flag, ...locked]);

  afterEach(async () => {
    // Whatever happened, the folder must become removable again.
    await chattr('-i').catch(() => undefined);
    await daemon?.stop();
    home.remove();
  });

  it('answers writes 503 with Retry-After while it cannot write, loses nothing, and stores again once it can', async () => {
    daemon = await startDaemon(home.path);
    let log = '';
    daemon.process.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const { url, token } = daemon;
    const sourceId = await createSource(url, token, 'shop');

    const stop = new AbortController();
    const outcomes: Outcome[] = [];
    const target = { name: 'sqlite', url, token, sourceId };
    const writers = [composeUntil(target, stop.signal, outcomes), composeUntil(target, stop.signal, outcomes)];
    await eventually(() => outcomes.filter((o) => o.status === 201).length >= 50, 20_000);

    await chattr('+i');
    const lockedAt = Date.now();
    const refusedWhileLocked = await eventually(
      () => outcomes.some((o) => o.at > lockedAt && o.status !== 201),
      10_000,
    );
    await eventually(() => outcomes.filter((o) => o.at > lockedAt && o.status !== 201).length >= 20, 10_000);
    await chattr('-i');
    const writableAt = Date.now();
    const storedAgain = await eventually(() => outcomes.some((o) => o.at > writableAt && o.status === 201), 10_000);
    await eventually(() => outcomes.filter((o) => o.at > writableAt && o.status === 201).length >= 20, 10_000);
    stop.abort();
    await Promise.all(writers);

    expect({ refusedWhileLocked, storedAgain, exitCode: daemon.process.exitCode }).toEqual({
      refusedWhileLocked: true,
      storedAgain: true,
      exitCode: null,
    });
    expect(badRefusals(outcomes), 'refusals that are not 503 with Retry-After').toEqual([]);
    const stored = await storedIds(url, token, sourceId);
    expect(
      outcomes.flatMap((o) => (o.id && !stored.has(o.id) ? [o.id] : [])),
      'acknowledged but not stored',
    ).toEqual([]);
    expect(stackTraces(log), log).toEqual([]);
    // Said once with its cause, not once per refused request.
    const said = outageLines(log);
    expect(said.length).toBeGreaterThan(0);
    expect(said.length).toBeLessThan(outcomes.filter((o) => o.status === 503).length);
    expect(said[0]).toMatch(/"cause":"SQLITE_[A-Z_]+ /);
  }, 60_000);
});
