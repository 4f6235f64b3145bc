import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { nativeBinding } from './native-addon.js';

describe("better-sqlite3's addon", () => {
  it('is the file the package finds itself, by its finder from its own folder', () => {
    const packageJson = createRequire(import.meta.url).resolve('better-sqlite3/package.json');
    const bindings = createRequire(packageJson)('bindings') as (options: object) => string;
    const own = bindings({ bindings: 'better_sqlite3.node', module_root: dirname(packageJson), path: true });
    expect(nativeBinding()).toBe(own);
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
