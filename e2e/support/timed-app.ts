import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Requests with a latency and a status chosen by the caller, for checking `tapline stats` against
 * what an app really did. The app reads both from the request (`x-wait-ms`, `x-status`), so the
 * three capture paths of e2e/stats-capture.test.ts serve the same plan with the same few lines
 * (support/otel-timed-app.cjs is the CommonJS twin the OpenTelemetry SDK can patch).
 */
export interface Planned {
  readonly method: 'GET' | 'DELETE';
  readonly path: string;
  readonly template: string;
  readonly status: number;
  readonly waitMs: number;
}

const USERS = '/users/{id}';
const ITEMS = '/orders/{orderId}/items/{itemId}';

/**
 * A spread, so that p50, p90, p95 and p99 are different entries: GET /users/{id} rises by 4 ms a
 * request with a tail of two slow ones; the items are two modes (a cache hit and a miss). Every
 * method and path appears once, so a stored entry tells which request it was.
 */
export const PLAN: readonly Planned[] = [
  ...Array.from({ length: 24 }, (_, i): Planned => ({
    method: 'GET',
    path: `/users/${40 + i}`,
    template: USERS,
    waitMs: i === 22 ? 180 : i === 23 ? 320 : 4 + 4 * i,
    status: i === 3 || i === 17 ? 404 : i === 11 ? 503 : 200,
  })),
  ...Array.from({ length: 4 }, (_, i): Planned => ({
    method: 'DELETE',
    path: `/users/${70 + i}`,
    template: USERS,
    waitMs: 15 + 10 * i,
    status: i === 2 ? 409 : 204,
  })),
  ...Array.from({ length: 12 }, (_, i): Planned => ({
    method: 'GET',
    path: `/orders/7/items/${i + 1}`,
    template: ITEMS,
    waitMs: i % 3 === 0 ? 110 + 5 * i : 2 + i,
    status: i === 4 || i === 9 ? 502 : i === 6 ? 429 : 200,
  })),
];

/** Answers with the status `x-status` after at least `x-wait-ms` milliseconds, whatever the path. */
export async function answerAsTold(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = performance.now();
  const waitMs = Number(req.headers['x-wait-ms'] ?? 0);
  // A timer may fire a fraction of a millisecond early; the plan promises at least the wait.
  while (performance.now() - started < waitMs) await sleep(waitMs - (performance.now() - started));
  const status = Number(req.headers['x-status'] ?? 200);
  res.writeHead(status, status === 204 ? {} : { 'content-type': 'application/json' });
  res.end(status === 204 ? undefined : JSON.stringify({ path: req.url, status }));
}

/** Sends the plan to `base`, a few at a time, checking each answer's status. */
export async function sendPlan(base: string): Promise<void> {
  const queue = [...PLAN];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const response = await fetch(`${base}${next.path}`, {
        method: next.method,
        headers: { 'x-wait-ms': String(next.waitMs), 'x-status': String(next.status) },
      });
      await response.arrayBuffer();
      if (response.status !== next.status)
        throw new Error(`${next.method} ${next.path} answered ${response.status}, not ${next.status}`);
    }
  };
  await Promise.all([worker(), worker(), worker()]);
}
