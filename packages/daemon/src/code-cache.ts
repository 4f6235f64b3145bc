import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { Script } from 'node:vm';

/**
 * A CommonJS file of the daemon's bundle run through V8's code cache, kept beside it in
 * `<file>.<hash>.cache`: the bundle itself (launch.ts) and its second file (first-use-file.ts).
 * Compiling was a large share of a start; with the cache V8 reuses the compiled functions instead
 * (docs/performance.md#startup). Node 20 has no code cache for ES modules (Node 22's
 * module.enableCompileCache is the built-in way), hence CommonJS run through vm.Script.
 * A cache from another Node version, other V8 flags or another file is rejected by V8 and the file
 * compiles as without one; the cache is then written again, once the process has compiled what it
 * needs (or at exit, for a process stopped sooner), if the folder can be written (a read-only
 * install simply goes without). V8 checks a cache against the source's length only, so the cache
 * is named after a hash of the file: a rebuilt file never meets the cache of the one before.
 */

/** Long enough for a start (or a first use) to reach its answer, so that the cache holds what it compiles. */
const WRITE_AFTER_MS = 1_500;

/** Runs `make` under the V8 flags the cache is to be made and read under (heap-limits.ts's `underStartFlags`). */
export type UnderFlags = <T>(make: () => T) => T;

function readCache(cacheFile: string): Buffer | undefined {
  try {
    return readFileSync(cacheFile);
  } catch {
    return undefined;
  }
}

/**
 * Written under a temporary name and renamed: two daemons starting together never leave half a
 * file. The name is the process's and a random one, made only if absent: two containers' daemons
 * are each pid 1, and may share one installed folder.
 */
function writeCache(cacheFile: string, data: Buffer): void {
  const temporary = `${cacheFile}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    writeFileSync(temporary, data, { flag: 'wx' });
    renameSync(temporary, cacheFile);
  } catch (error) {
    // Another's file of that name is left alone; one this process began is removed.
    if (!(error instanceof Error && 'code' in error && error.code === 'EEXIST')) rmSync(temporary, { force: true });
  }
}

/** What Node's CommonJS loader puts before and after a module's text (`Module.wrap`). */
const [WRAP_HEAD = '', WRAP_TAIL = ''] = Module.wrap('\0').split('\0');

/**
 * The file's bytes, and its text wrapped as a CommonJS module: `Module.wrap` of the text decoded
 * as UTF-8. The file is read after room for the wrapper's head and before its tail, so that an
 * ASCII file (the daemon's build makes only those) becomes the wrapped text in one flat string of
 * one-byte characters. `Module.wrap` joined three strings, which V8 copied into one again when it
 * compiled them: 1.5 to 2 ms of a start for the 2 MB bundle (decisions §20.39).
 */
export function readWrapped(file: string): { bytes: Buffer; source: string } {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const whole = Buffer.allocUnsafe(WRAP_HEAD.length + size + WRAP_TAIL.length);
    whole.write(WRAP_HEAD, 0, 'latin1');
    let read = 0;
    for (let n = 1; read < size && n > 0; read += n)
      n = readSync(fd, whole, WRAP_HEAD.length + read, size - read, read);
    const bytes = whole.subarray(WRAP_HEAD.length, WRAP_HEAD.length + read);
    if (read < size || !isAscii(bytes)) return { bytes, source: Module.wrap(bytes.toString('utf8')) };
    whole.write(WRAP_TAIL, WRAP_HEAD.length + size, 'latin1');
    return { bytes, source: whole.toString('latin1') };
  } finally {
    closeSync(fd);
  }
}

/** `file` compiled with its code cache, under `underFlags`; the cache is written later when there was none or V8 refused it. */
export function compileCached(file: string, underFlags: UnderFlags): Script {
  const { bytes, source } = readWrapped(file);
  // A hash of the file itself: npm gives every installed file the same modification time, so two
  // releases of one size would otherwise share a name, and V8 would take the older one's code.
  // Of the file's bytes, not of the string (which would be encoded to UTF-8 again), and SHA-256,
  // which this machine's CPUs do in hardware: 2 ms for the 2.5 MB bundle where SHA-1 of the
  // string took 6 (docs/performance.md, issue 30's cold start).
  const cacheFile = `${file}.${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}.cache`;
  const cachedData = readCache(cacheFile);
  const script = underFlags(() => new Script(source, { filename: file, ...(cachedData ? { cachedData } : {}) }));
  if (!cachedData || script.cachedDataRejected === true) {
    let written = false;
    const write = () => {
      if (!written)
        writeCache(
          cacheFile,
          underFlags(() => script.createCachedData()),
        );
      written = true;
    };
    setTimeout(write, WRITE_AFTER_MS).unref();
    process.once('exit', write);
  }
  return script;
}

/** Runs a compiled CommonJS `file` as Node would, as `module`, with `dir` its __dirname. */
export function runCommonJs(script: Script, file: string, dir: string, module: { exports: object }): void {
  const run: unknown = script.runInThisContext();
  if (typeof run !== 'function') throw new TypeError(`${file} did not compile to a CommonJS module`);
  run.call(module.exports, module.exports, createRequire(file), module, file, dir);
}
