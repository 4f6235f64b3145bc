import { ApiError, contract, type TaplineClient, type TrafficSource } from '@tapline/shared';
import { expect } from 'vitest';
import type { Clock } from '@tapline/daemon';
import type { Harness } from './harness.js';

/** A UUID that names nothing in any test database. */
export const MISSING_ID = '01a1fc8d-93a2-767e-92f3-e5a71388f88b';

/** The error a call rejected with; fails the test when it resolved, or failed without an HTTP answer. */
export async function apiError(call: Promise<unknown>): Promise<ApiError> {
  const outcome = await call.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected an ApiError, got ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(ApiError);
  return outcome.error as ApiError;
}

/** Asserts the status and, when given, the exact message of a rejected call. */
export async function expectError(call: Promise<unknown>, status: number, message?: string): Promise<ApiError> {
  const error = await apiError(call);
  expect({ status: error.status, statusCode: error.body.statusCode }).toEqual({ status, statusCode: status });
  if (message !== undefined) expect(error.body.error).toBe(message);
  return error;
}

let sourceCounter = 0;

export function createSource(
  client: TaplineClient,
  name = `source-${++sourceCounter}`,
  trafficDomain = 'shop.example.com',
): Promise<TrafficSource> {
  return client.call(contract.createTrafficSource, { body: { name, trafficDomain } });
}

/** A clock the test moves by hand: `set('2026-01-02T00:00:00.000Z')`, `advance(1000)`. */
export function manualClock(
  start = '2026-01-01T00:00:00.000Z',
): Clock & { set(iso: string): void; advance(ms: number): void } {
  let now = new Date(start).getTime();
  return {
    now: () => new Date(now),
    set: (iso) => {
      now = new Date(iso).getTime();
    },
    advance: (ms) => {
      now += ms;
    },
  };
}

export interface RawAnswer {
  readonly status: number;
  readonly text: string;
  /** The parsed body, or `undefined` when it was empty or not JSON. */
  readonly json: unknown;
  readonly headers: Headers;
}

/** A request the way a plain HTTP client sends it: no typed client, no schema on the answer. */
export async function raw(
  h: Harness,
  method: string,
  path: string,
  options: { token?: string; body?: string | Uint8Array; headers?: Record<string, string> } = {},
): Promise<RawAnswer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  const response = await h.fetch(path, {
    method,
    headers,
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json, headers: response.headers };
}

/** A JSON request with a token: the common case of `raw`. */
export function rawJson(
  h: Harness,
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
): Promise<RawAnswer> {
  return raw(h, method, path, {
    ...(token !== undefined ? { token } : {}),
    ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
  });
}
