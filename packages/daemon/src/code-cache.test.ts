import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Module } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { afterEach, expect, it } from 'vitest';
import { readWrapped, runCommonJs } from './code-cache.js';

/**
 * readWrapped gives V8 the text Node's CommonJS loader would (`Module.wrap` of the file decoded as
 * UTF-8), read into one string where the file is ASCII, as the daemon's build makes it
 * (decisions §20.39), and joined by `Module.wrap` where it is not.
 */

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function file(text: string): string {
  dir ??= mkdtempSync(join(tmpdir(), 'tapline-code-cache-'));
  const path = join(dir, `${Math.random().toString(36).slice(2)}.cjs`);
  writeFileSync(path, text);
  return path;
}

/** The module's exports, run from `source` as the launcher runs the bundle. */
function exportsOf(path: string, source: string): unknown {
  const module = { exports: {} };
  runCommonJs(new Script(source, { filename: path }), path, join(path, '..'), module);
  return module.exports;
}

it.each([
  ['an ASCII file', "'use strict';\nmodule.exports = { text: 'plain', dir: __dirname, file: __filename };\n"],
  ['a file beyond ASCII', "module.exports = { text: 'caf\u00e9 \u2026 \u{1F600}', dir: __dirname, file: __filename };"],
  ['an empty file', ''],
])('reads %s as Module.wrap of its UTF-8 text, with its bytes', (_, text) => {
  const path = file(text);
  const { bytes, source } = readWrapped(path);
  expect(source).toBe(Module.wrap(readFileSync(path, 'utf8')));
  expect(bytes.equals(readFileSync(path))).toBe(true);
  expect(exportsOf(path, source)).toEqual(
    text ? { text: /text: '([^']*)'/.exec(text)?.[1], dir: join(path, '..'), file: path } : {},
  );
});
