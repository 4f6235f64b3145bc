import { readdirSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { build, type Plugin } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { depdWithoutLines, lazyMimeMaps } from '../scripts/release/start-patches.mjs';

/**
 * The daemon's bundle patches depd and mime-types so that a start does less (start-patches.mjs,
 * docs/decisions.md §20.3). Each package is bundled here as published and as patched, the way the
 * daemon's build bundles it, and both copies must answer alike.
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// The copies the daemon bundles: express's own dependencies.
const fromExpress = createRequire(createRequire(join(root, 'packages/daemon/package.json')).resolve('express'));

/** `name` bundled to CommonJS with `plugins`, run as a script of its own file name; its exports. */
async function bundled(
  name: string,
  plugins: Plugin[],
  path = fromExpress.resolve(name),
): Promise<{ text: string; exports: Record<string, unknown> }> {
  const result = await build({
    stdin: { contents: `module.exports = require(${JSON.stringify(path)});`, resolveDir: dirname(path) },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    logLevel: 'silent',
    plugins,
  });
  const text = result.outputFiles[0]?.text ?? '';
  const module = { exports: {} as Record<string, unknown> };
  const run: unknown = new Script(`(function (module, exports, require) {${text}\n})`, {
    filename: '/bundle/taplined.cjs',
  }).runInThisContext();
  if (typeof run !== 'function') throw new TypeError('the bundle did not compile to a function');
  Reflect.apply(run, undefined, [module, module.exports, createRequire(path)]);
  return { text, exports: module.exports };
}

interface MimeTypes {
  types: Record<string, string>;
  extensions: Record<string, string[]>;
  _extensionConflicts: unknown[];
  lookup(path: string): string | false;
  extension(type: string): string | false;
  contentType(type: string): string | false;
  charset(type: string): string | false;
}

/** Every mime-types the workspace installs (express's 3, and a 2 another package brings): each is patched if bundled. */
const mimeTypesCopies = readdirSync(join(root, 'node_modules/.pnpm'))
  .filter((dir) => dir.startsWith('mime-types@'))
  .map((dir) => [dir, join(root, 'node_modules/.pnpm', dir, 'node_modules/mime-types/index.js')] as const);

describe('the start patches', () => {
  it("finds express's mime-types among the installed copies", () => {
    expect(mimeTypesCopies.map(([, path]) => realpathSync(path))).toContain(
      realpathSync(fromExpress.resolve('mime-types')),
    );
  });

  it.each(mimeTypesCopies)('%s builds its maps at their first read, the same maps as published', async (_, path) => {
    const published = await bundled('mime-types', [], path);
    const patched = await bundled('mime-types', [lazyMimeMaps], path);
    expect(patched.text).not.toBe(published.text);
    // Nothing built before the first read.
    expect(Object.keys(Object.getOwnPropertyDescriptor(patched.exports, 'types') ?? {})).toContain('get');
    expect(Object.keys(patched.exports)).toEqual(Object.keys(published.exports));

    const before = published.exports as unknown as MimeTypes;
    const after = patched.exports as unknown as MimeTypes;
    // A lookup first, as a request would: it builds the maps.
    expect(after.lookup('report.JSON')).toBe(before.lookup('report.JSON'));
    expect(Object.getOwnPropertyDescriptor(after, 'types')).toEqual(Object.getOwnPropertyDescriptor(before, 'types'));
    expect(after.types).toEqual(before.types);
    expect(after.extensions).toEqual(before.extensions);
    expect(Object.getOwnPropertyDescriptor(after, '_extensionConflicts')).toEqual(
      Object.getOwnPropertyDescriptor(before, '_extensionConflicts'),
    );
    for (const ext of [...Object.keys(before.types), 'html', 'nope', '.md', 'a/b.txt'])
      expect(after.lookup(ext), ext).toBe(before.lookup(ext));
    for (const type of [...Object.keys(before.extensions), 'application/json; charset=utf-8', 'text/x-nope', 'json'])
      expect([after.extension(type), after.contentType(type), after.charset(type)], type).toEqual([
        before.extension(type),
        before.contentType(type),
        before.charset(type),
      ]);
  });

  it('mime-types takes an assignment before the first read as published does', async () => {
    const published = (await bundled('mime-types', [])).exports as unknown as MimeTypes;
    const patched = (await bundled('mime-types', [lazyMimeMaps])).exports as unknown as MimeTypes;
    for (const m of [published, patched]) m.types = { tap: 'application/x-tapline' };
    expect(patched.types).toEqual(published.types);
    expect(patched.lookup('a.tap')).toBe('application/x-tapline');
    expect(patched.extension('text/html')).toBe(published.extension('text/html'));
  });

  it('depd finds the calling file without asking for its line', async () => {
    const published = await bundled('depd', []);
    const patched = await bundled('depd', [depdWithoutLines]);
    expect(patched.text).not.toBe(published.text);
    const file = (exports: Record<string, unknown>) => {
      const depd = exports as unknown as (namespace: string) => { _file: string };
      return depd('tapline-test')._file;
    };
    expect(file(patched.exports)).toBe(file(published.exports));
    expect(file(patched.exports)).toBe(fileURLToPath(import.meta.url));
  });
});
