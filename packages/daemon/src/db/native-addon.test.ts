import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { addonUnder, MissingAddon, nativeBinding } from './native-addon.js';

const packageJson = createRequire(import.meta.url).resolve('better-sqlite3/package.json');
/** better-sqlite3's own require: `bindings` is its dependency. */
const packageRequire = createRequire(packageJson);

describe("better-sqlite3's addon", () => {
  const folders: string[] = [];
  afterEach(() => {
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  });
  const folder = () => {
    const made = mkdtempSync(join(tmpdir(), 'tapline-addon-'));
    folders.push(made);
    return made;
  };

  it('is the file the package finds itself, by its finder from its own folder', () => {
    const bindings = packageRequire('bindings') as (options: object) => string;
    const own = bindings({ bindings: 'better_sqlite3.node', module_root: dirname(packageJson), path: true });
    expect(nativeBinding()).toBe(own);
  });

  it("is, in a folder where only bindings' later places hold it, the one bindings answers", () => {
    const root = folder();
    mkdirSync(join(root, 'out', 'Release'), { recursive: true });
    writeFileSync(join(root, 'out', 'Release', 'better_sqlite3.node'), '');
    expect(addonUnder(root, packageRequire)).toBe(join(root, 'out', 'Release', 'better_sqlite3.node'));
  });

  it('is build/ before build/Release, as bindings tries them', () => {
    const root = folder();
    for (const at of ['build', 'build/Release']) {
      mkdirSync(join(root, at), { recursive: true });
      writeFileSync(join(root, at, 'better_sqlite3.node'), '');
    }
    expect(addonUnder(root, packageRequire)).toBe(join(root, 'build', 'better_sqlite3.node'));
  });

  it('missing, is one line that names the folder, not the paths tried', () => {
    const root = folder();
    const missing = (() => {
      try {
        return addonUnder(root, packageRequire);
      } catch (error) {
        return error;
      }
    })();
    expect(missing).toBeInstanceOf(MissingAddon);
    const { message } = missing as MissingAddon;
    expect(message).toBe(
      `better-sqlite3's native addon (better_sqlite3.node) is not installed under ${root}; reinstall taplined, or run \`npm rebuild better-sqlite3\` where it is installed`,
    );
    expect(message).not.toContain('\n');
  });

  it('opens a database when handed over', () => {
    const db = new Database(':memory:', { nativeBinding: nativeBinding() });
    try {
      expect(db.prepare('select 1 + 1 as two').get()).toEqual({ two: 2 });
    } finally {
      db.close();
    }
  });
});
