import { createServer } from 'node:net';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiErrors } from '@tapline/testkit/openapi';
import { cli, startDaemon, startProxy, tempHome, type SpawnedDaemon, type SpawnedProxy } from './support/binaries.js';

/**
 * Issue 28 against something nobody here wrote: the Swagger Petstore's OpenAPI 3.0 document
 * (fixtures/petstore, Apache 2.0) served by Prism's mock server, traffic recorded through the
 * built `tapline proxy`. Inference must recover every exercised operation, and the original spec
 * must pass the recorded traffic and name the deliberately wrong exchanges.
 */
const SPEC = join(import.meta.dirname, 'fixtures', 'petstore', 'openapi.yaml');
const PRISM = join(import.meta.dirname, 'node_modules', '.bin', 'prism');

let home: ReturnType<typeof tempHome>;
let daemon: SpawnedDaemon;
let prism: ResultPromise;
let proxy: SpawnedProxy;
let sourceId = '';

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

async function startPrism(): Promise<string> {
  const port = await freePort();
  prism = execa(PRISM, ['mock', SPEC, '-h', '127.0.0.1', '-p', String(port)], { reject: false, buffer: false });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`prism did not start: ${out}`)), 60_000);
    prism.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Prism is listening')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return `http://127.0.0.1:${port}`;
}

const headers = { accept: 'application/json', api_key: 'special-key', authorization: 'Bearer petstore-user-token' };
/** The operations exercised: method, path sent, the Petstore's path, the body sent. */
const EXERCISED: [string, string, string, object?][] = [
  ['GET', '/pet/findByStatus?status=available', '/pet/findByStatus'],
  ['GET', '/pet/findByStatus?status=sold', '/pet/findByStatus'],
  ['GET', '/pet/7', '/pet/{petId}'],
  ['GET', '/pet/12', '/pet/{petId}'],
  ['POST', '/pet', '/pet', { name: 'rex', photoUrls: ['https://example.com/rex.png'], status: 'available' }],
  ['PUT', '/pet', '/pet', { id: 7, name: 'rex', photoUrls: [], status: 'sold' }],
  ['GET', '/store/inventory', '/store/inventory'],
  ['POST', '/store/order', '/store/order', { id: 3, petId: 7, quantity: 1, status: 'placed', complete: false }],
  ['GET', '/store/order/3', '/store/order/{orderId}'],
];

async function stored(): Promise<number> {
  const response = await fetch(`${daemon.url}/http-traffic/${sourceId}?limit=1`, {
    headers: { authorization: `Bearer ${daemon.token}` },
  });
  return ((await response.json()) as { meta: { total: number } }).meta.total;
}

async function untilStored(count: number): Promise<void> {
  for (let waited = 0; (await stored()) < count; waited += 50) {
    if (waited > 15_000) throw new Error(`the daemon holds ${await stored()} entries, not ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const run = (args: string[]) => cli(['--url', daemon.url, '--token', daemon.token, ...args]);

beforeAll(async () => {
  home = tempHome();
  daemon = await startDaemon(home.path);
  const created = await fetch(`${daemon.url}/traffic-source`, {
    method: 'POST',
    headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'petstore', trafficDomain: 'localhost' }),
  });
  sourceId = String(((await created.json()) as { id: string }).id);
  const target = await startPrism();
  proxy = await startProxy([
    '--url',
    daemon.url,
    '--token',
    daemon.token,
    'proxy',
    '--source',
    'petstore',
    '--target',
    target,
    '--listen',
    '127.0.0.1:0',
  ]);
  for (const [method, path, , body] of EXERCISED) {
    const response = await fetch(`${proxy.url}${path}`, {
      method,
      headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    expect(response.status, `${method} ${path}: ${await response.text()}`).toBe(200);
  }
  await untilStored(EXERCISED.length);
}, 120_000);

afterAll(async () => {
  proxy?.child.kill('SIGKILL');
  await proxy?.child;
  prism?.kill('SIGKILL');
  await prism;
  await daemon?.stop().catch(() => undefined);
  home?.remove();
});

type Doc = {
  paths: Record<
    string,
    Record<
      string,
      {
        responses: Record<
          string,
          { content?: Record<string, { schema: { items?: { properties: object }; properties?: object } }> }
        >;
      }
    >
  >;
};

describe('api infer and api check on the Swagger Petstore served by Prism (issue 28)', () => {
  it('infer recovers every exercised operation: templates, methods, statuses and response properties; both validators pass it', async () => {
    const result = await run(['api', 'infer', 'petstore', '--format', 'json']);
    expect(result.exitCode, result.stderr).toBe(0);
    const doc = JSON.parse(result.stdout) as Doc;
    expect(await openApiErrors(doc)).toEqual([]);
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`),
    );
    const expected = [...new Set(EXERCISED.map(([m, , spec]) => `${m} ${spec.replace(/\{[^}]+\}/g, '{}')}`))];
    expect(operations.sort()).toEqual(expected.sort());
    for (const item of Object.values(doc.paths))
      for (const op of Object.values(item)) expect(Object.keys(op.responses)).toEqual(['200']);
    const pet = doc.paths['/pet/{id}']!.get!.responses['200']!.content!['application/json']!.schema;
    expect(Object.keys(pet.properties ?? {}).sort()).toEqual(['category', 'id', 'name', 'photoUrls', 'status', 'tags']);
    const found = doc.paths['/pet/findByStatus']!.get!.responses['200']!.content!['application/json']!.schema;
    expect(Object.keys(found.items?.properties ?? {})).toContain('photoUrls');
    expect(result.stdout).not.toContain('petstore-user-token');
  });

  it('check against the original spec passes the recorded traffic (exit 0)', async () => {
    const result = await run(['api', 'check', 'petstore', '--spec', SPEC]);
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain(`${EXERCISED.length} exchanges checked: all conform`);
  });

  it('check names the deliberately wrong exchanges: a missing required property, a wrong type, an undocumented method (exit 1)', async () => {
    const compose = async (body: object) => {
      const sample = {
        domainUrl: 'http://localhost',
        protocol: 'HTTP',
        elapsedTime: 3,
        trafficSourceId: sourceId,
        queryParams: {},
        requestBody: null,
        requestHeaders: { accept: 'application/json' },
        responseHeaders: { 'content-type': 'application/json' },
      };
      const response = await fetch(`${daemon.url}/http-traffic-record/${sourceId}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...sample, ...body }),
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { id: string }).id;
    };
    const missing = await compose({
      method: 'GET',
      pathnameUrl: '/pet/9',
      status: 200,
      responseBody: { id: 9, photoUrls: [] },
    });
    const wrongType = await compose({
      method: 'GET',
      pathnameUrl: '/store/order/4',
      status: 200,
      responseBody: { id: 'four', petId: 7, quantity: 1 },
    });
    // Every Petstore operation documents a `default` response, so no status is undocumented there
    // (that kind is covered by check.test.ts); a method it does not document is.
    const undocumented = await compose({ method: 'PATCH', pathnameUrl: '/pet/9', status: 200, responseBody: {} });
    const result = await run(['api', 'check', 'petstore', '--spec', SPEC, '--json']);
    expect(result.exitCode, result.stderr).toBe(1);
    const report = JSON.parse(result.stdout) as {
      exchanges: number;
      conforming: number;
      violations: { kind: string; path: string; pointer: string; rule: string; examples: string[] }[];
    };
    expect(report.violations.map((v) => [v.kind, v.path, v.pointer, v.rule, v.examples])).toEqual(
      expect.arrayContaining([
        ['response-body', '/pet/{petId}', '/name', 'required', [missing]],
        ['response-body', '/store/order/{orderId}', '/id', 'type', [wrongType]],
        ['undocumented-method', '/pet/{petId}', '', 'undocumented-method', [undocumented]],
      ]),
    );
    expect(report.violations).toHaveLength(3);
    expect([report.exchanges, report.conforming]).toEqual([EXERCISED.length + 3, EXERCISED.length]);
  });
});
