import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StatsAnswer, HttpTraffic } from '@tapline/shared';
import { exactPercentile, expectNumbersOf, PERCENTILES, until } from '@tapline/testkit';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { tapline as taplineOf } from '../packages/node/src/index.js';
import {
  admin,
  cli,
  type SpawnedDaemon,
  type SpawnedProxy,
  startDaemon,
  startProxy,
  tempHome,
} from './support/binaries.js';
import { runOtelApp } from './support/otel-run.js';
import { answerAsTold, PLAN, type Planned, sendPlan } from './support/timed-app.js';

/**
 * The built @tapline/node, loaded at run time: `pnpm test` type-checks before it builds, so a static
 * import of `dist` would fail on a fresh clone; the types come from the source it is built from.
 */
const NODE_DIST = new URL('../packages/node/dist/index.js', import.meta.url).href;
const { tapline } = (await import(NODE_DIST)) as { tapline: typeof taplineOf };
const OTEL_APP = join(dirname(fileURLToPath(import.meta.url)), 'support', 'otel-timed-app.cjs');

/**
 * Issue 26's capture test: one built daemon, and at the same time a real Express app recording
 * through the built @tapline/node, an OpenTelemetry-instrumented Express app exporting OTLP/HTTP,
 * and `tapline proxy` in front of a plain node:http app, each serving support/timed-app.ts's plan
 * (known waits and statuses). `tapline stats --json` must then give each capture path the right
 * templates (sent by Express in the first two, inferred in the third), counts and error classes,
 * and percentiles within 1 % of the exact ones of the stored durations, which are at least the
 * waits the apps imposed. One source per capture path: in a shared source, one path's missing or
 * misfiled entries could hide behind another's, and each path's numbers are checked on their own.
 */
const SOURCES = { middleware: 'express-node', otel: 'otel-express', proxy: 'plain-http' } as const;

let home: ReturnType<typeof tempHome>;
let daemon: SpawnedDaemon;
const taplineCli = (args: readonly string[]) => cli(['--url', daemon.url, '--token', daemon.token, ...args]);

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** The @tapline/node path: Express gives the template (`/users/:id`), the middleware sends it. */
async function viaMiddleware(ingestToken: string): Promise<void> {
  const recorder = tapline({
    url: daemon.url,
    token: ingestToken,
    source: SOURCES.middleware,
    queue: { flushIntervalMs: 10 },
  });
  const app = express();
  app.use(recorder);
  app.get('/users/:id', answerAsTold);
  app.delete('/users/:id', answerAsTold);
  app.get('/orders/:orderId/items/:itemId', answerAsTold);
  const server = createServer(app);
  try {
    await sendPlan(await listen(server));
    expect(await recorder.flush(30_000)).toBe(true);
  } finally {
    await recorder.close(1000);
    await close(server);
  }
}

/** The OpenTelemetry path: the SDK's server spans, with `http.route`, over OTLP/HTTP (protobuf). */
async function viaOtel(ingestToken: string): Promise<void> {
  await runOtelApp(
    OTEL_APP,
    {
      EXPORTER: 'proto',
      OTEL_SERVICE_NAME: 'timed-app',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${daemon.url}/v1/traces`,
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: `authorization=Bearer ${ingestToken},x-tapline-source=${SOURCES.otel}`,
    },
    sendPlan,
  );
}

/** The proxy path: a plain node:http app sends no template; the daemon infers one from the path. */
async function viaProxy(ingestToken: string): Promise<void> {
  const server = createServer((req, res) => void answerAsTold(req, res));
  let proxy: SpawnedProxy | undefined;
  try {
    proxy = await startProxy([
      '--url',
      daemon.url,
      '--token',
      ingestToken,
      'proxy',
      '--source',
      SOURCES.proxy,
      '--target',
      await listen(server),
      '--listen',
      '127.0.0.1:0',
    ]);
    await sendPlan(proxy.url);
    // The proxy records after it answered: wait until the daemon holds every exchange.
    await until(
      async () => (await stored(SOURCES.proxy)).length === PLAN.length,
      'the proxy to record every exchange',
      30_000,
    );
  } finally {
    proxy?.child.kill('SIGTERM');
    await proxy?.child;
    await close(server);
  }
}

async function stored(source: string): Promise<HttpTraffic[]> {
  const listed = await taplineCli(['traffic', 'list', source, '--all', '--ndjson']);
  expect(listed.exitCode, listed.stderr).toBe(0);
  return listed.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as HttpTraffic);
}

beforeAll(async () => {
  home = tempHome();
  daemon = await startDaemon(home.path);
  for (const name of Object.values(SOURCES))
    expect((await taplineCli(['sources', 'add', name, 'localhost'])).exitCode).toBe(0);
  const ingestToken = await admin(home.path, ['token', 'create', 'local@localhost', '--scope', 'ingest']);
  await Promise.all([viaMiddleware(ingestToken), viaOtel(ingestToken), viaProxy(ingestToken)]);
}, 120_000);

afterAll(async () => {
  await daemon?.stop();
  home?.remove();
});

const key = (method: string, path: string) => `${method} ${path}`;
const planned = new Map(PLAN.map((p) => [key(p.method, p.path), p]));
const groupsOfPlan = [...new Set(PLAN.map((p) => key(p.method, p.template)))].sort();

describe('tapline stats over three capture paths at once (built daemon, CLI and @tapline/node)', () => {
  it.each(Object.entries(SOURCES))(
    '%s (source %s): the right templates, exact counts and error classes, percentiles within 1 % of the stored durations',
    async (_path, source) => {
      const entries = await stored(source);
      // Every planned request once, under the plan's template, with its status, lasting at least its wait.
      expect(entries.map((e) => key(e.method, e.pathname)).sort()).toEqual([...planned.keys()].sort());
      for (const entry of entries) {
        const plan = planned.get(key(entry.method, entry.pathname));
        expect(entry, key(entry.method, entry.pathname)).toMatchObject({ route: plan?.template, status: plan?.status });
        expect(
          entry.elapsedTime,
          `${key(entry.method, entry.pathname)} waited ${plan?.waitMs} ms`,
        ).toBeGreaterThanOrEqual(plan?.waitMs ?? Infinity);
        // A duration in the wrong unit (seconds, microseconds) is off by 1,000 (the slowest wait, 320 ms,
        // would read 320 s or 0.32 ms); a loaded machine adds seconds at most.
        expect(entry.elapsedTime).toBeLessThan((plan?.waitMs ?? 0) + 30_000);
      }

      const answer = await taplineCli(['stats', source, '--json']);
      expect(answer.exitCode, answer.stderr).toBe(0);
      const groups = (JSON.parse(answer.stdout) as StatsAnswer).data;
      expect(groups.map((g) => key(g.method ?? '', g.route ?? '')).sort()).toEqual(groupsOfPlan);
      for (const group of groups) {
        const label = key(group.method ?? '', group.route ?? '');
        const mine = entries.filter((e) => key(e.method, e.route ?? '') === label);
        expectNumbersOf(
          group,
          mine.map((e) => ({ status: e.status, latency: e.elapsedTime })),
          `${source} ${label}`,
        );
        // Each stored duration is at least its imposed wait, so each order statistic is too.
        const imposed = PLAN.filter((p: Planned) => key(p.method, p.template) === label)
          .map((p) => p.waitMs)
          .sort((a, b) => a - b);
        for (const [name, q] of PERCENTILES)
          expect(group[name], `${label} ${name}`).toBeGreaterThanOrEqual(exactPercentile(imposed, q) * 0.99);
      }

      const table = await taplineCli(['stats', source]);
      expect(table.exitCode, table.stderr).toBe(0);
      for (const template of new Set(PLAN.map((p) => p.template))) expect(table.stdout).toContain(template);
    },
  );
});
