import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HomeInUse, lockHome } from './home-lock.js';

describe('lockHome', () => {
  const homes: string[] = [];
  afterEach(() => {
    for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
  });
  const home = () => {
    const dir = mkdtempSync(join(tmpdir(), 'tapline-lock-unit-'));
    homes.push(dir);
    return dir;
  };

  it('refuses a second holder, naming the first by pid, until the first releases it', () => {
    const dir = home();
    const first = lockHome(dir);
    expect(() => lockHome(dir)).toThrow(HomeInUse);
    expect(() => lockHome(dir)).toThrow(`another taplined (pid ${process.pid}, still starting) uses the home ${dir}`);
    first.release();
    lockHome(dir).release();
  });

  it('names the address once the holder has written daemon.json, and ignores one another pid wrote', () => {
    const dir = home();
    const held = lockHome(dir);
    writeFileSync(join(dir, 'daemon.json'), JSON.stringify({ url: 'http://127.0.0.1:1', pid: process.pid + 1 }));
    expect(() => lockHome(dir)).toThrow('still starting');
    writeFileSync(join(dir, 'daemon.json'), JSON.stringify({ url: 'http://127.0.0.1:2', pid: process.pid }));
    expect(() => lockHome(dir)).toThrow(
      `another taplined (pid ${process.pid}, listening on http://127.0.0.1:2) uses the home ${dir}`,
    );
    held.release();
  });
});
