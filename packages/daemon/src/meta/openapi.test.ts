import { contract, type Endpoint } from '@tapline/shared';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../app.js';
import type { OpenedDatabase } from '../db/open.js';
import { defaultConfig } from '../config.js';
import { raw, type Harness, startHarness, openTestDatabase } from '@tapline/testkit/daemon';

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** Every method + path the app serves, found by walking Express's router stack (nested routers too). */
function mountedRoutes(stack: readonly Layer[]): string[] {
  const found: string[] = [];
  for (const layer of stack) {
    if (layer.route) {
      const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
      for (const method of Object.keys(layer.route.methods)) {
        if (method === '_all') continue;
        for (const path of paths) found.push(`${method.toUpperCase()} ${path}`);
      }
    } else if (layer.handle?.stack) {
      found.push(...mountedRoutes(layer.handle.stack));
    }
  }
  return found;
}

type Operation = {
  operationId: string;
  security: unknown[];
  responses: Record<string, unknown>;
  parameters: Array<{ name: string; in: string; description?: string }>;
};

/** `/webhooks/:webhookId` and `/webhooks/{id}` have the same shape `/webhooks/:`. */
const shapeOf = (route: string) => route.replace(/:[A-Za-z]+|\{[A-Za-z]+\}/g, ':');
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> };

describe('GET /openapi.json', () => {
  let h: Harness;
  let opened: OpenedDatabase;
  let served: string[];
  let doc: Document;

  beforeAll(async () => {
    opened = await openTestDatabase();
    const { app, stop } = createApp({
      db: opened.db,
      dialect: opened.dialect,
      config: defaultConfig('0.0.0-test'),
      logger: pino({ level: 'silent' }),
    });
    served = mountedRoutes((app as unknown as { router: { stack: Layer[] } }).router.stack);
    await stop();
    h = await startHarness();
    const answer = await raw(h, 'GET', '/openapi.json');
    expect(answer.status).toBe(200);
    doc = answer.json as Document;
  });
  afterAll(async () => {
    await h.close();
    await opened.close();
  });

  const documented = () =>
    Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${shapeOf(path)}`),
    );

  it('is OpenAPI 3.1', () => {
    expect(doc.openapi).toBe('3.1.0');
  });

  it('walks a real router stack', () => {
    expect(served).toContain('GET /traffic-source');
    expect(served).toContain('DELETE /webhooks/:webhookId');
    expect(served.length).toBeGreaterThanOrEqual(Object.keys(contract).length);
  });

  it('lists every route the app serves', () => {
    const listed = new Set(documented());
    expect(served.filter((route) => !listed.has(shapeOf(route)))).toEqual([]);
  });

  it('lists no route the app does not serve', () => {
    const mounted = new Set(served.map(shapeOf));
    expect(documented().filter((route) => !mounted.has(route))).toEqual([]);
  });

  it('has no two templated paths that differ only in parameter names (OpenAPI 3.1 forbids it)', () => {
    const shapes = Object.keys(doc.paths).map(shapeOf);
    expect(shapes.length).toBe(new Set(shapes).size);
    expect(Object.keys(doc.paths)).toContain('/webhooks/{id}');
  });

  it('describes every endpoint of the contract with its statuses, auth and parameters', () => {
    for (const [name, e] of Object.entries(contract as Record<string, Endpoint>)) {
      const operation = Object.entries(doc.paths).find(([path]) => shapeOf(path) === shapeOf(e.path))?.[1][
        e.method.toLowerCase()
      ];
      expect(operation, name).toBeDefined();
      if (!operation) continue;
      expect(operation.operationId).toBe(name);
      const statuses = Object.keys(operation.responses).map(Number);
      expect(statuses, name).toContain(e.status);
      for (const status of [...e.errors, 500]) expect(statuses, `${name} ${status}`).toContain(status);
      if (e.scopes) {
        expect(statuses, name).toEqual(expect.arrayContaining([400, 401]));
        expect(operation.security, name).toEqual([{ bearerAuth: [] }]);
      } else {
        expect(operation.security, name).toEqual([]);
      }
      const pathParams = [...e.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]);
      // A shared template names its parameter `id` and says which id it is.
      const named = operation.parameters
        .filter((p) => p.in === 'path')
        .map((p) => (p.name === 'id' && p.description ? p.description.replace(/^the /, '') : p.name));
      expect(named, name).toEqual(pathParams);
    }
  });
});
