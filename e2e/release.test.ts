import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, tempHome } from './support/binaries.js';
import { expectWebUi, sampleRecord, startListening } from './support/release.js';

/**
 * The release as a user gets it (issue 16): `pnpm release` (reused when its inputs are unchanged,
 * see scripts/release/build.mjs), the two executables run from an empty directory with no `node`
 * on PATH and an empty HOME, and the three npm packages installed and used outside the repository.
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const release = join(root, 'dist', 'release');
const pkg = (name: string) =>
  JSON.parse(readFileSync(join(root, 'packages', name, 'package.json'), 'utf8')) as { version: string };
const tarball = (name: string) => join(release, `tapline-${name}-${pkg(name).version}.tgz`);

let temp: ReturnType<typeof tempHome>;

beforeAll(async () => {
  temp = tempHome('tapline-release-');
  await execa(process.execPath, [join(root, 'scripts', 'release', 'build.mjs'), '--reuse'], {
    cwd: root,
    env: cleanEnv(),
    extendEnv: false,
  });
}, 600_000);

afterAll(() => temp?.remove());

describe('the single executables', () => {
  it('serve, take a record and list it from an empty directory, with no node on PATH and an empty HOME', async () => {
    const bin = join(temp.path, 'bin');
    const home = join(temp.path, 'home');
    const data = join(temp.path, 'data');
    for (const dir of [bin, home]) mkdirSync(dir);
    for (const name of ['taplined', 'tapline']) copyFileSync(join(release, name), join(bin, name));
    for (const name of ['taplined', 'tapline']) chmodSync(join(bin, name), 0o755);
    // Only the two files: no node, no node_modules, run from a directory of their own.
    const options = { cwd: bin, env: { PATH: bin, HOME: home }, extendEnv: false } as const;
    const run = (command: string, args: readonly string[], input?: string) =>
      execa(command, args, {
        ...options,
        reject: false,
        ...(input === undefined ? { stdin: 'ignore' as const } : { input }),
      });

    const daemon = await startListening('taplined', ['--port', '0', '--home', data, '--log-level', 'info'], options);
    const tapline = (args: readonly string[], input?: string) =>
      run('tapline', ['--url', daemon.url, '--home', data, ...args], input);
    try {
      const status = await tapline(['status']);
      expect(status.stdout).toContain(`daemon   ${daemon.url}  ok  v${pkg('daemon').version}`);
      expect(status.stdout).toContain('local@localhost');
      expect((await tapline(['sources', 'add', 'shop', 'shop.example.com'])).exitCode).toBe(0);
      expect((await tapline(['record', 'shop'], JSON.stringify(sampleRecord('/api/orders')))).exitCode).toBe(0);
      const list = JSON.parse(String((await tapline(['traffic', 'list', 'shop', '--json'])).stdout)) as {
        data: { pathname: string; status: number }[];
      };
      expect(list.data).toEqual([expect.objectContaining({ pathname: '/api/orders', status: 201 })]);

      // A batch over 64 KiB is prepared in the worker thread, which must load inside the executable too.
      const token = readFileSync(join(data, 'token'), 'utf8').trim();
      const sources = JSON.parse(String((await tapline(['sources', 'list', '--json'])).stdout)) as {
        data: { id: string }[];
      };
      const id = sources.data[0]?.id ?? '';
      const batch = Array.from({ length: 300 }, (_, i) => ({ ...sampleRecord(`/api/bulk/${i}`), trafficSourceId: id }));
      const answer = await fetch(`${daemon.url}/http-traffic-record/${id}/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(batch),
      });
      expect(answer.status).toBe(201);
      expect(((await answer.json()) as { ids: string[] }).ids).toHaveLength(300);

      // The web UI is inside the executable too, served at the daemon's own address.
      await expectWebUi(daemon.url);

      const ui = await run('tapline', ['ui', '--help']);
      expect(ui.exitCode).toBe(0);
      expect(ui.stdout).toContain('Usage: tapline ui');

      // `tapline proxy` records, its batches sent from the thread it loads from a file beside
      // tapline.js, which the executable must carry too (decisions §20.36).
      const app = createServer((req, res) => res.end(`answer to ${req.url ?? ''}`));
      await new Promise<void>((listening) => app.listen(0, '127.0.0.1', listening));
      const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
      const proxy = execa(
        'tapline',
        [
          '--url',
          daemon.url,
          '--home',
          data,
          'proxy',
          '--source',
          'shop',
          '--target',
          appUrl,
          '--listen',
          '127.0.0.1:0',
        ],
        { ...options, reject: false, stdin: 'ignore' },
      );
      try {
        const proxyUrl = await new Promise<string>((resolve, reject) => {
          let out = '';
          proxy.stdout?.on('data', (chunk: Buffer) => {
            out += chunk.toString();
            const match = /tapline proxy listening on (http:\/\/\S+)/.exec(out);
            if (match?.[1]) resolve(match[1]);
          });
          void proxy.then((result) => reject(new Error(`tapline proxy exited: ${String(result.stderr)}`)));
        });
        const forwarded = await fetch(`${proxyUrl}/api/proxied`, { method: 'POST', body: '{"n":1}' });
        expect(await forwarded.text()).toBe('answer to /api/proxied');
      } finally {
        proxy.kill('SIGINT');
        app.close();
      }
      const proxied = await proxy;
      expect(proxied.exitCode).toBe(0);
      expect(String(proxied.stderr)).toContain('tapline proxy: forwarded 1; stored 1; dropped 0;');
      const recorded = JSON.parse(
        String((await tapline(['traffic', 'list', 'shop', '--path', '/api/proxied', '--json'])).stdout),
      ) as { data: { pathname: string }[] };
      expect(recorded.data).toEqual([expect.objectContaining({ pathname: '/api/proxied' })]);
      const cliFiles = readdirSync(join(home, '.cache', 'tapline')).find((name) => name.startsWith('tapline-')) ?? '';
      expect(readdirSync(join(home, '.cache', 'tapline', cliFiles))).toContain('proxy-sender.js');
    } finally {
      const stopped = await daemon.stop();
      expect(stopped.exitCode).toBe(0);
      expect(stopped.stderr).toContain('started the batch worker thread');
      expect(stopped.stderr).not.toMatch(/"level":(50|60)/);
    }

    // The unpacked files: owner-only, and a damaged one is written again on the next start.
    const cache = join(home, '.cache', 'tapline');
    const unpacked = readdirSync(cache).find((name) => name.startsWith('taplined-')) ?? '';
    expect(statSync(join(cache, unpacked)).mode & 0o777).toBe(0o700);
    const addon = join(cache, unpacked, 'better_sqlite3.node');
    expect(statSync(addon).mode & 0o777).toBe(0o600);
    writeFileSync(addon, 'damaged');
    const tokens = await run('taplined', ['token', 'list', '--home', data]);
    expect(tokens.stderr).toBe('');
    expect(tokens.exitCode).toBe(0);
    expect(tokens.stdout).toContain('local@localhost');
  }, 180_000);
});

/**
 * better-sqlite3 installs its addon with prebuild-install, which downloads it from GitHub and
 * compiles it (minutes) when it cannot. This serves the addon the workspace built for this very
 * Node and version, through prebuild-install's documented mirror setting, so the test is quick
 * and needs only the npm registry; any other version is refused and would be compiled.
 */
async function prebuildMirror(dir: string) {
  const require = (await import('node:module')).createRequire(join(root, 'packages', 'daemon', 'package.json'));
  const betterSqlite = dirname(require.resolve('better-sqlite3/package.json'));
  const { version } = JSON.parse(readFileSync(join(betterSqlite, 'package.json'), 'utf8')) as { version: string };
  mkdirSync(join(dir, 'build', 'Release'), { recursive: true });
  copyFileSync(
    join(betterSqlite, 'build', 'Release', 'better_sqlite3.node'),
    join(dir, 'build', 'Release', 'better_sqlite3.node'),
  );
  await execa('tar', ['czf', 'prebuild.tar.gz', 'build'], { cwd: dir });
  const archive = readFileSync(join(dir, 'prebuild.tar.gz'));
  const server = createServer((req, res) => {
    if (req.url?.startsWith(`/v${version}/`) && req.url.endsWith('.tar.gz')) res.end(archive);
    else res.writeHead(404).end();
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

describe('the npm packages', () => {
  it('install into a prefix and work from outside the repository: taplined and tapline on PATH, the middleware by import and require, with types', async () => {
    const prefix = join(temp.path, 'npm');
    const app = join(temp.path, 'app');
    const data = join(temp.path, 'npm-data');
    mkdirSync(app);
    const mirror = await prebuildMirror(join(temp.path, 'prebuild'));
    const npmEnv = cleanEnv({ npm_config_better_sqlite3_binary_host: mirror.url });
    try {
      await Promise.all([
        execa(
          'npm',
          ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', tarball('daemon'), tarball('cli')],
          { env: npmEnv, extendEnv: false },
        ),
        execa('npm', ['install', '--no-audit', '--no-fund', tarball('node')], {
          cwd: app,
          env: npmEnv,
          extendEnv: false,
        }),
      ]);
    } finally {
      mirror.close();
    }
    const options = {
      cwd: app,
      env: cleanEnv({ PATH: `${join(prefix, 'bin')}:${dirname(process.execPath)}` }),
      extendEnv: false,
    } as const;
    const daemon = await startListening('taplined', ['--port', '0', '--home', data], options);
    try {
      const tapline = (args: readonly string[]) =>
        execa('tapline', ['--url', daemon.url, '--home', data, ...args], { ...options, stdin: 'ignore' });
      expect((await tapline(['status'])).stdout).toContain('local@localhost');
      await tapline(['sources', 'add', 'shop', 'shop.example.com']);
      await expectWebUi(daemon.url);

      const token = readFileSync(join(data, 'token'), 'utf8').trim();
      // One request recorded through the middleware, loaded as an ES module and as CommonJS.
      const script = (load: string, path: string) => `${load}
const tap = tapline({ url: ${JSON.stringify(daemon.url)}, token: ${JSON.stringify(token)}, source: 'shop' });
const server = http.createServer(tap.wrap((req, res) => res.end('ok'))).listen(0, '127.0.0.1', async () => {
  await fetch('http://127.0.0.1:' + server.address().port + '${path}');
  const stored = await tap.close();
  server.close();
  process.stdout.write(JSON.stringify({ stored, sent: tap.stats().sent }));
});`;
      writeFileSync(
        join(app, 'esm.mjs'),
        script("import http from 'node:http';\nimport { tapline } from '@tapline/node';", '/esm'),
      );
      writeFileSync(
        join(app, 'cjs.cjs'),
        script("const http = require('node:http');\nconst { tapline } = require('@tapline/node');", '/cjs'),
      );
      for (const file of ['esm.mjs', 'cjs.cjs']) {
        expect(JSON.parse(String((await execa('node', [file], options)).stdout))).toEqual({ stored: true, sent: 1 });
      }
      const list = JSON.parse(String((await tapline(['traffic', 'list', 'shop', '--json'])).stdout)) as {
        data: { pathname: string }[];
      };
      expect(list.data.map((entry) => entry.pathname).sort()).toEqual(['/cjs', '/esm']);

      // The types resolve for both module systems, as a TypeScript user's editor would find them.
      writeFileSync(
        join(app, 'types.mts'),
        "import { tapline, type TaplineOptions } from '@tapline/node';\nconst options: TaplineOptions = { token: 't', source: 's' };\ntapline(options).stats().sent.toFixed();\n",
      );
      writeFileSync(
        join(app, 'types.cts'),
        "import tap = require('@tapline/node');\ntap.tapline({ token: 't', source: 's' }).errorHandler();\n",
      );
      const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
      const typeRoots = join(root, 'node_modules', '@types');
      await execa(
        'node',
        [
          tsc,
          '--noEmit',
          '--strict',
          '--module',
          'nodenext',
          '--typeRoots',
          typeRoots,
          '--types',
          'node',
          'types.mts',
          'types.cts',
        ],
        options,
      );
    } finally {
      expect((await daemon.stop()).exitCode).toBe(0);
    }
  }, 600_000);
});

describe('the @tapline/node bundle', () => {
  it('carries no validation library: each built file is under 60 KB, with no zod in it', () => {
    const dist = join(root, 'packages', 'node', 'dist');
    for (const name of readdirSync(dist)) {
      expect({ name, small: statSync(join(dist, name)).size < 60_000 }).toEqual({ name, small: true });
      expect(readFileSync(join(dist, name), 'utf8')).not.toMatch(/\bzod\b/);
    }
  });
});
