import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiErrors } from '@tapline/testkit/openapi';
import { cli, startDaemon, startProxy, tempHome, type SpawnedDaemon, type SpawnedProxy } from './support/binaries.js';

/**
 * Issue 28's walk-through with the built binaries: traffic of an app recorded through
 * `tapline proxy`, `api infer` to a file, `api check` of the same traffic against it, then the app
 * changes and `api check` and `api diff` say what it now does differently.
 */
let home: ReturnType<typeof tempHome>;
let daemon: SpawnedDaemon;
let app: http.Server;
let proxy: SpawnedProxy;
let dir: string;
/** The app's second version drops `nickname` from users and answers 500 to a deleted user. */
let version = 1;
/** When the second version started answering. */
let changedAt = '';

function shop(): http.Server {
  const api = express();
  api.use(express.json());
  api.get('/api/users/:id', (req, res) => {
    if (version === 2 && req.params.id === '13') return res.status(500).json({ error: 'deleted user' });
    const id = Number(req.params.id);
    res.json({
      id,
      email: `user${id}@example.com`,
      createdAt: '2026-11-20T10:00:00Z',
      ...(version === 1 ? { nickname: id % 2 ? null : `nick${id}` } : {}),
    });
  });
  api.post('/api/users', (req, res) => res.status(201).json({ id: 100, email: (req.body as { email: string }).email }));
  api.get('/api/orders', (req, res) =>
    res.json({
      status: req.query.status ?? 'all',
      orders: [{ id: 'b7f5c4e2-1d3a-4c5b-9e8f-0a1b2c3d4e5f', total: 12.5 }],
    }),
  );
  return http.createServer(api);
}

const run = (args: string[]) => cli(['--url', daemon.url, '--token', daemon.token, ...args]);

async function send(method: string, path: string, body?: object): Promise<void> {
  const response = await fetch(`${proxy.url}${path}`, {
    method,
    headers: { authorization: 'Bearer app-user-secret', ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  await response.arrayBuffer();
}

async function stored(): Promise<number> {
  const response = await fetch(`${daemon.url}/http-traffic/${sourceId}?limit=1`, {
    headers: { authorization: `Bearer ${daemon.token}` },
  });
  return ((await response.json()) as { meta: { total: number } }).meta.total;
}

let sourceId = '';

/** Waits until the proxy's records reached the daemon (it sends them in the background). */
async function untilStored(count: number): Promise<void> {
  for (let waited = 0; (await stored()) < count; waited += 50) {
    if (waited > 15_000) throw new Error(`the daemon holds ${await stored()} entries, not ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function traffic(): Promise<void> {
  for (let id = 10; id < 16; id++) await send('GET', `/api/users/${id}`);
  await send('POST', '/api/users', { email: 'new@example.com', name: 'New' });
  await send('GET', '/api/orders?status=open');
  await send('GET', '/api/orders');
}

beforeAll(async () => {
  home = tempHome();
  dir = mkdtempSync(join(tmpdir(), 'tapline-contract-'));
  daemon = await startDaemon(home.path);
  const created = await fetch(`${daemon.url}/traffic-source`, {
    method: 'POST',
    headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'shop', trafficDomain: 'localhost' }),
  });
  sourceId = String(((await created.json()) as { id: string }).id);
  app = shop();
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  const target = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  proxy = await startProxy([
    '--url',
    daemon.url,
    '--token',
    daemon.token,
    'proxy',
    '--source',
    'shop',
    '--target',
    target,
    '--listen',
    '127.0.0.1:0',
  ]);
  await traffic();
  await untilStored(9);
}, 60_000);

afterAll(async () => {
  proxy?.child.kill('SIGKILL');
  await proxy?.child;
  app?.closeAllConnections();
  await new Promise((resolve) => app?.close(resolve));
  await daemon?.stop().catch(() => undefined);
  home?.remove();
  rmSync(dir, { recursive: true, force: true });
});

describe('tapline api: infer, check, diff (issue 28)', () => {
  it('infer writes an OpenAPI 3.1 document that both validators pass, with every route and status recorded', async () => {
    const file = join(dir, 'shop.yaml');
    const result = await run(['api', 'infer', 'shop', '-o', file]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain(`wrote ${file} (3 paths)`);
    expect(await openApiErrors(file)).toEqual([]);
    const doc = JSON.parse((await run(['api', 'infer', 'shop', '--format', 'json'])).stdout) as {
      openapi: string;
      paths: Record<
        string,
        Record<
          string,
          {
            responses: Record<
              string,
              { content: Record<string, { schema: { properties: object; required: string[] } }> }
            >;
          }
        >
      >;
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(['/api/orders', '/api/users', '/api/users/{id}']);
    const user = doc.paths['/api/users/{id}']!.get!.responses['200']!.content['application/json']!.schema;
    expect(user.required).toEqual(['createdAt', 'email', 'id', 'nickname']);
    expect(readFileSync(file, 'utf8')).not.toContain('app-user-secret');
    const again = await run(['api', 'infer', 'shop', '--format', 'yaml']);
    // execa drops the last newline of what it captured.
    expect(`${again.stdout}\n`).toBe(readFileSync(file, 'utf8'));
  });

  it('check passes the traffic the document was inferred from (exit 0), then names what the changed app breaks (exit 1)', async () => {
    const file = join(dir, 'shop.yaml');
    const pass = await run(['api', 'check', 'shop', '--spec', file]);
    expect(pass.exitCode, pass.stdout + pass.stderr).toBe(0);
    expect(pass.stdout).toContain('9 exchanges checked: all conform');

    version = 2;
    changedAt = new Date().toISOString();
    await traffic();
    await untilStored(18);
    const fail = await run(['api', 'check', 'shop', '--spec', file, '--since', changedAt, '--json']);
    expect(fail.exitCode, fail.stderr).toBe(1);
    const report = JSON.parse(fail.stdout) as {
      violations: { kind: string; status: number; pointer: string; rule: string; examples: string[] }[];
    };
    expect(report.violations.map((v) => [v.kind, v.status, v.pointer, v.rule])).toEqual(
      expect.arrayContaining([
        ['response-body', 200, '/nickname', 'required'],
        ['undocumented-status', 500, '', 'undocumented-status'],
      ]),
    );
    const shown = await run(['traffic', 'show', 'shop', report.violations[0]!.examples[0]!, '--json']);
    expect(shown.exitCode, shown.stderr).toBe(0);
  });

  it('diff of the committed document and a new inference marks the removed property breaking (exit 1)', async () => {
    const now = join(dir, 'now.json');
    expect((await run(['api', 'infer', 'shop', '--since', changedAt, '-o', now])).exitCode).toBe(0);
    const diff = await run(['api', 'diff', join(dir, 'shop.yaml'), now, '--json']);
    expect(diff.exitCode, diff.stderr).toBe(1);
    const changes = (
      JSON.parse(diff.stdout) as { changes: { operation: string; where: string; change: string; breaking: boolean }[] }
    ).changes;
    expect(changes).toEqual(
      expect.arrayContaining([
        {
          operation: 'GET /api/users/{id}',
          where: 'response 200 body /nickname',
          change: 'property removed',
          breaking: true,
        },
        { operation: 'GET /api/users/{id}', where: 'response 500', change: 'response status added', breaking: false },
      ]),
    );
    const same = await run(['api', 'diff', join(dir, 'shop.yaml'), join(dir, 'shop.yaml')]);
    expect([same.exitCode, same.stdout.trim()]).toEqual([0, 'no changes']);
  });

  it('a spec that is not OpenAPI exits 7 with the parser message; a bad flag exits 2', async () => {
    const bad = await run(['api', 'check', 'shop', '--spec', join(dir, 'missing.yaml')]);
    expect(bad.exitCode).toBe(7);
    expect(bad.stderr).toMatch(/^tapline: .*missing\.yaml is not a readable, valid OpenAPI document: .*ENOENT/);
    const usage = await run(['api', 'check', 'shop', '--spec', join(dir, 'shop.yaml'), '--max-examples', '0']);
    expect(usage.exitCode).toBe(2);
  });
});
