import { z } from 'zod';
import type { FilterExpr } from '../filter/ast.js';
import { FilterQuery } from '../filter/query.js';
import { ROUTE_ORIGINS } from '../routes/template.js';
import { HTTP_METHODS } from './traffic-enums.js';
import { RouteParam } from './http-traffic.js';
import { durationMs } from './duration.js';

export { durationMs };

const isIsoTime = (text: string) =>
  z.iso.datetime({ offset: true }).safeParse(text).success || z.iso.date().safeParse(text).success;

/** A duration back from now (`1h`) or an ISO 8601 time; resolved against the daemon's clock. */
export const TimeParam = (name: string) =>
  z
    .string()
    .refine(
      (v) => durationMs(v) !== undefined || isIsoTime(v),
      `${name} must be a duration such as 15m, 1h or 7d, or an ISO 8601 date-time`,
    );

export const STATS_GROUPINGS = ['route', 'route,method', 'method', 'status'] as const;
export type StatsGrouping = (typeof STATS_GROUPINGS)[number];

/** The filter fields the statistics keep: route, method, status (by class), level and domain. */
const STATS_FIELDS = new Set(['route', 'method', 'status', 'level', 'domain']);

/**
 * Why a `where` cannot be answered from the statistics, or undefined. Status is kept by class, so
 * an exact code, or a bound inside a class (`status>=450`), cannot be told apart.
 */
export function statsWhereProblem(expr: FilterExpr): string | undefined {
  switch (expr.type) {
    case 'not':
      return statsWhereProblem(expr.operand);
    case 'and':
    case 'or':
      return expr.operands.map(statsWhereProblem).find((p) => p !== undefined);
    case 'compare': {
      if (!STATS_FIELDS.has(expr.field))
        return `${expr.field === 'header' ? `header.${expr.header ?? ''}` : expr.field} is not kept in the statistics; use route, method, status, level or domain`;
      if (expr.field === 'status' && typeof expr.value === 'number') {
        const v = expr.value;
        const aligned =
          ((expr.op === '>=' || expr.op === '<') && v % 100 === 0) ||
          ((expr.op === '>' || expr.op === '<=') && v % 100 === 99);
        if (!aligned)
          return `status is kept by class in the statistics: compare with a class such as status=5xx, or status>=500`;
      }
      return undefined;
    }
  }
}

/** `where`: the filter language, on the fields the statistics keep. */
const StatsWhere = FilterQuery.superRefine((expr, ctx) => {
  const problem = expr && statsWhereProblem(expr);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

const CompareParam = z
  .string()
  .refine(
    (v) => v === 'previous' || durationMs(v) !== undefined,
    'compare must be "previous" or a duration back such as 1d or 7d',
  );

const BucketParam = z.string().refine((v) => {
  const span = durationMs(v);
  return span !== undefined && span >= 60_000 && span % 60_000 === 0;
}, 'bucket must be a whole number of minutes such as 1m, 5m, 1h or 1d');

export const StatsQuery = z.object({
  since: TimeParam('since').optional(),
  until: TimeParam('until').optional(),
  by: z.enum(STATS_GROUPINGS, { message: 'by must be one of route, route,method, method, status' }).optional(),
  where: StatsWhere.optional(),
  route: RouteParam.optional(),
  compare: CompareParam.optional(),
  series: z.enum(['0', '1'], { message: 'series must be 1 or 0' }).optional(),
  bucket: BucketParam.optional(),
});
export type StatsQuery = z.output<typeof StatsQuery>;

/** The numbers of one group over a window; latencies in milliseconds, null when it holds no entry. */
export const StatsNumbers = z.object({
  count: z.number().int(),
  status4xx: z.number().int(),
  status5xx: z.number().int(),
  /** (4xx + 5xx) / count, 0 without entries. */
  errorRate: z.number(),
  p50: z.number().nullable(),
  p90: z.number().nullable(),
  p95: z.number().nullable(),
  p99: z.number().nullable(),
  max: z.number().nullable(),
  requestBytes: z.number().int(),
  responseBytes: z.number().int(),
});
export type StatsNumbers = z.infer<typeof StatsNumbers>;

export const StatsPoint = z.object({
  start: z.string(),
  count: z.number().int(),
  status5xx: z.number().int(),
  p95: z.number().nullable(),
});
export type StatsPoint = z.infer<typeof StatsPoint>;

export const StatsGroup = StatsNumbers.extend({
  route: z.string().optional(),
  method: z.enum(HTTP_METHODS).optional(),
  /** With `by=status`: the class, `2xx`. */
  status: z.string().optional(),
  previous: StatsNumbers.optional(),
  series: z.array(StatsPoint).optional(),
});
export type StatsGroup = z.infer<typeof StatsGroup>;

export const StatsAnswer = z.object({
  data: z.array(StatsGroup),
  meta: z.object({
    since: z.string(),
    until: z.string(),
    by: z.enum(STATS_GROUPINGS),
    bucket: z.string().optional(),
    previous: z.object({ since: z.string(), until: z.string() }).optional(),
    /** Set when part of the window is older than `--stats-retention`: what is answered is what is kept. */
    retention: z.object({ keptSince: z.string(), note: z.string() }).optional(),
  }),
});
export type StatsAnswer = z.infer<typeof StatsAnswer>;

export const RouteSummary = z.object({
  id: z.uuid(),
  template: z.string(),
  origin: z.enum(ROUTE_ORIGINS),
  /** Stored entries filed under it (raw traffic; statistics outlive it). */
  entries: z.number().int(),
  createdAt: z.string(),
});
export type RouteSummary = z.infer<typeof RouteSummary>;
