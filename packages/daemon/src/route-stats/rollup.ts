import type { HttpMethod } from '@tapline/shared';
import type { Selectable } from 'kysely';
import { mergeBytes, newSketch, type Sketch } from './sketch.js';
import type { RouteStatsTable } from './table.js';

/** What the statistics take of one stored entry. */
export interface StatInput {
  readonly sourceId: string;
  readonly routeId: string;
  readonly method: HttpMethod;
  readonly domainId: string;
  readonly createdAt: string;
  readonly status: number;
  readonly elapsedTime: number;
  readonly requestBytes: number;
  readonly responseBytes: number;
}

/** The numbers of a set of entries as they add up: a row's columns, with a live sketch. */
export interface Totals {
  count: number;
  latencyMax: number;
  latencySum: number;
  requestBytes: number;
  responseBytes: number;
  sketch: Sketch;
}

/** One row's key and its totals. */
export interface MinuteTotals extends Totals {
  readonly sourceId: string;
  readonly minute: string;
  readonly routeId: string;
  readonly method: HttpMethod;
  readonly domainId: string;
  readonly statusClass: number;
}

/** The minute an ISO time falls in, in the same form (`2026-05-05T10:07:00.000Z`). */
export const minuteOf = (iso: string): string => `${iso.slice(0, 16)}:00.000Z`;

/** 1 for 1xx … 5 for 5xx (compose takes 100..599 only). */
export const statusClassOf = (status: number): number => Math.min(5, Math.max(1, Math.floor(status / 100)));

/** UTF-8 bytes of a body's JSON text as stored (0 without a body): what requestBytes and responseBytes add up. */
export const bodyBytes = (json: string | null): number => (json === null ? 0 : Buffer.byteLength(json));

/** What names one minute row: its key. */
export type Keyed = Pick<MinuteTotals, 'sourceId' | 'minute' | 'routeId' | 'method' | 'domainId' | 'statusClass'>;

/** The key rows are locked and written in: every writer takes them in this order (the primary key's). */
export const keyOf = (t: Keyed): string =>
  `${t.sourceId} ${t.minute} ${t.routeId} ${t.method} ${t.domainId} ${t.statusClass}`;

export const emptyTotals = (): Totals => ({
  count: 0,
  latencyMax: 0,
  latencySum: 0,
  requestBytes: 0,
  responseBytes: 0,
  sketch: newSketch(),
});

/** The inputs summed per row key, sorted by key. */
export function totalsOf(inputs: readonly StatInput[]): MinuteTotals[] {
  const byKey = new Map<string, MinuteTotals>();
  for (const input of inputs) {
    const keyed: Keyed = {
      sourceId: input.sourceId,
      minute: minuteOf(input.createdAt),
      routeId: input.routeId,
      method: input.method,
      domainId: input.domainId,
      statusClass: statusClassOf(input.status),
    };
    const key = keyOf(keyed);
    let totals = byKey.get(key);
    if (!totals) byKey.set(key, (totals = { ...keyed, ...emptyTotals() }));
    totals.count += 1;
    totals.latencyMax = Math.max(totals.latencyMax, input.elapsedTime);
    totals.latencySum += input.elapsedTime;
    totals.requestBytes += input.requestBytes;
    totals.responseBytes += input.responseBytes;
    totals.sketch.accept(input.elapsedTime);
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, totals]) => totals);
}

export type StoredMinute = Pick<
  Selectable<RouteStatsTable>,
  'count' | 'latency_max' | 'latency_sum' | 'request_bytes' | 'response_bytes' | 'sketch'
>;

/** Adds a stored row's numbers into `totals` (bigints arrive as text from PostgreSQL). */
export function addStored(totals: Totals, row: StoredMinute): void {
  totals.count += Number(row.count);
  totals.latencyMax = Math.max(totals.latencyMax, Number(row.latency_max));
  totals.latencySum += Number(row.latency_sum);
  totals.requestBytes += Number(row.request_bytes);
  totals.responseBytes += Number(row.response_bytes);
  mergeBytes(totals.sketch, row.sketch);
}
