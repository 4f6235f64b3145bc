import { readdirSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { build, type Plugin } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { contractRoutes } from '@tapline/shared/lean';
import {
  depdWithoutLines,
  lazyIpAddress,
  lazyMimeMaps,
  lazyPinoTransport,
  lazyRouteMatchers,
  lazySonicBoomAssert,
} from '../scripts/release/start-patches.mjs';

/**
 * The daemon's bundle patches depd and mime-types so that a start does less (start-patches.mjs,
 * docs/decisions.md §20.3). Each package is bundled here as published and as patched, the way the
 * daemon's build bundles it, and both copies must answer alike.
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// The copies the daemon bundles: express's own dependencies, pino and pino's.
const fromDaemon = createRequire(join(root, 'packages/daemon/package.json'));
const fromExpress = createRequire(fromDaemon.resolve('express'));
const fromPino = createRequire(fromDaemon.resolve('pino'));

/** `name` bundled to CommonJS with `plugins`, run as a script of its own file name; its exports. */
async function bundled(
  name: string,
  plugins: Plugin[],
  path = fromExpress.resolve(name),
  required: string[] = [],
  external: string[] = [],
): Promise<{ text: string; exports: Record<string, unknown> }> {
  const result = await build({
    stdin: { contents: `module.exports = require(${JSON.stringify(path)});`, resolveDir: dirname(path) },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    logLevel: 'silent',
    plugins,
    external,
  });
  const text = result.outputFiles[0]?.text ?? '';
  const module = { exports: {} as Record<string, unknown> };
  const run: unknown = new Script(`(function (module, exports, require) {${text}\n})`, {
    filename: '/bundle/taplined.cjs',
  }).runInThisContext();
  if (typeof run !== 'function') throw new TypeError('the bundle did not compile to a function');
  const load = createRequire(path);
  const require = Object.assign((id: string): unknown => (required.push(id), load(id)), load);
  Reflect.apply(run, undefined, [module, module.exports, require]);
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

  it('router compiles each path at its first match, to the same match as published', async () => {
    const published = await bundled('router', []);
    const patched = await bundled('router', [lazyRouteMatchers]);
    expect(patched.text).not.toBe(published.text);
    type Layer = { matchers: unknown[]; match(path: string): unknown };
    type Router = { stack: Layer[]; get(path: string | string[], fn: () => void): void; use(fn: () => void): void };
    const mount = (exports: Record<string, unknown>) => {
      const router = (exports as unknown as (options: object) => Router)({ strict: false });
      router.use(() => undefined);
      for (const { path } of Object.values(contractRoutes)) router.get(path, () => undefined);
      router.get('/assets/:name', () => undefined);
      router.get(['/a/:b', '/c'], () => undefined);
      return router.stack;
    };
    const before = mount(published.exports);
    const after = mount(patched.exports);
    expect(after.map((l) => l.matchers.length)).toEqual(before.map((l) => l.matchers.length));
    const paths = Object.values(contractRoutes).flatMap(({ path }) => {
      const filled = path.replace(/:(\w+)/g, 'x%20$1');
      return [path, filled, `${filled}/`, filled.toUpperCase(), `${filled}/more`, filled.replace(/\/[^/]*$/, '')];
    });
    for (const path of [...paths, '/', '/assets/app.js', '/assets/%E2%82%AC', '/assets/%zz', '/a/b', '/c', '/nope'])
      for (const [i, layer] of after.entries()) {
        const match = (l: Layer) => {
          try {
            return l.match(path);
          } catch (error) {
            return error instanceof Error ? { threw: error.message } : error;
          }
        };
        expect(match(layer), `${path} at ${i}`).toEqual(match(before[i] as Layer));
      }
    // What moved: a path that cannot compile now fails at its first match instead of its mounting.
    const broken = (exports: Record<string, unknown>) => {
      const router = (exports as unknown as (options: object) => Router)({});
      router.get('/a/:', () => undefined);
      return router.stack[0] as Layer;
    };
    expect(() => broken(published.exports)).toThrow(TypeError);
    expect(() => broken(patched.exports).match('/a/b')).toThrow(TypeError);
    // And it fails every request that reaches its layer, a route mounted after it too, at every
    // match (a failed compile is not kept): each one is the router's error, a 500 in the daemon.
    type Handled = {
      get(path: string, fn: (req: unknown, res: unknown, next: () => void) => void): void;
      handle(req: object, res: object, done: (error?: unknown) => void): void;
    };
    const router = (patched.exports as unknown as (options: object) => Handled)({});
    router.get('/a/:', () => undefined);
    router.get('/c', (_req, _res, next) => next());
    const outcome = () => new Promise<unknown>((done) => router.handle({ url: '/c', method: 'GET' }, {}, done));
    expect(await outcome()).toBeInstanceOf(TypeError);
    expect(await outcome()).toBeInstanceOf(TypeError);
  });

  it("sonic-boom loads assert at its check, which fails as published's", async () => {
    const path = fromPino.resolve('sonic-boom');
    const required: string[] = [];
    const published = await bundled('sonic-boom', [], path);
    const patched = await bundled('sonic-boom', [lazySonicBoomAssert], path, required);
    expect(patched.text).not.toBe(published.text);
    expect(required).not.toContain('assert');
    const failure = (exports: Record<string, unknown>) => {
      const SonicBoom = exports as unknown as new (options: object) => { fd: unknown; destroy(): void };
      const sonic = new SonicBoom({ fd: 1, sync: true });
      sonic.fd = 'not a number';
      try {
        sonic.destroy();
      } catch (error) {
        return {
          name: (error as Error).name,
          message: (error as Error).message,
          code: (error as { code: string }).code,
        };
      }
      return undefined;
    };
    expect(failure(patched.exports)).toEqual(failure(published.exports));
    expect(failure(patched.exports)).toMatchObject({ code: 'ERR_ASSERTION' });
    expect(required).toContain('assert');
  });

  it('pino loads its transports (thread-stream, assert, a worker) at their first use', async () => {
    const path = fromDaemon.resolve('pino');
    const required: string[] = [];
    const published = await bundled('pino', [], path);
    const patched = await bundled('pino', [...lazyPinoTransport, lazySonicBoomAssert], path, required);
    expect(patched.text).not.toBe(published.text);
    expect(Object.keys(patched.exports)).toEqual(Object.keys(published.exports));
    // A logger on a file descriptor, as the daemon makes it, loads neither.
    type Pino = ((options: object, stream: unknown) => { info(message: string): void }) & {
      destination(fd: number): unknown;
      transport: (options: object) => unknown;
    };
    const pino = patched.exports as unknown as Pino;
    pino({ level: 'silent' }, pino.destination(1)).info('not written');
    expect(required).not.toContain('assert');
    const transport = pino.transport;
    expect(required).toContain('assert');
    const publishedTransport = (published.exports as unknown as Pino).transport;
    expect([typeof transport, transport.name, transport.length]).toEqual([
      typeof publishedTransport,
      publishedTransport.name,
      publishedTransport.length,
    ]);
    expect(Object.getOwnPropertyDescriptor(patched.exports, 'transport')).toEqual({
      ...Object.getOwnPropertyDescriptor(published.exports, 'transport'),
      value: transport,
    });
    // The option loads them too, and fails alike on a target that does not exist.
    const failure = (exports: Record<string, unknown>) => {
      try {
        (exports as unknown as Pino)({ transport: { target: '/no/such/target.js' } }, undefined);
      } catch (error) {
        return (error as Error).message;
      }
      return undefined;
    };
    expect(failure(patched.exports)).toEqual(failure(published.exports));
  });

  it("express-rate-limit loads ip-address with its first IPv6 key, the same keys as published's", async () => {
    // The ES module the daemon's bundle takes, with ip-address left to the recording require.
    const path = join(dirname(fromDaemon.resolve('express-rate-limit')), 'index.mjs');
    const required: string[] = [];
    const published = await bundled('express-rate-limit', [], path, [], ['ip-address']);
    const patched = await bundled('express-rate-limit', [lazyIpAddress], path, required, ['ip-address']);
    expect(patched.text).not.toBe(published.text);
    expect(Object.keys(patched.exports)).toEqual(Object.keys(published.exports));
    type KeyOf = (ip: string, subnet?: number | false) => string;
    const before = published.exports.ipKeyGenerator as KeyOf;
    const after = patched.exports.ipKeyGenerator as KeyOf;
    expect(after('203.0.113.7')).toBe(before('203.0.113.7'));
    expect(required).not.toContain('ip-address');
    const ips = [
      '2001:db8:85a3::8a2e:370:7334',
      '::ffff:192.0.2.1',
      '::192.0.2.1',
      '::1',
      '::',
      'fe80::1%eth0',
      '1.2.3.4',
    ];
    for (const ip of ips)
      for (const subnet of [undefined, 56, 64, 128, false] as const)
        expect(after(ip, subnet), `${ip}/${subnet}`).toBe(before(ip, subnet));
    expect(required).toContain('ip-address');
  });
});
