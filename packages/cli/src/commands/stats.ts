import { type Command, InvalidArgumentError } from 'commander';
import {
  ApiError,
  contract,
  formatLatency,
  STATS_GROUPINGS,
  type StatsAnswer,
  type StatsGroup,
  type StatsGrouping,
} from '@tapline/shared';
import { request } from '../api.js';
import type { CliContext } from '../context.js';
import { example } from '../help.js';
import type { Register } from '../register.js';
import { resolveSource } from '../resolve.js';
import { usage } from '../exit-codes.js';
import { renderTable } from '../table.js';

export interface StatsOptions {
  readonly since?: string;
  readonly until?: string;
  readonly by?: StatsGrouping;
  readonly route?: string;
  readonly where?: string;
  readonly sort?: StatsSort;
  readonly compare?: string;
}

export const SORTS = ['count', 'p95', 'p99', 'errors'] as const;
export type StatsSort = (typeof SORTS)[number];

/** What the table needs of its surroundings: `tapline stats` passes its context, the UI its palette and width. */
export type TableStyle = Pick<CliContext, 'colors' | 'width'>;
const BARS = '▁▂▃▄▅▆▇█';

/** Eight levels from the smallest to the largest value of the row; empty points are the lowest bar. */
export function sparkline(values: readonly (number | null)[]): string {
  const seen = values.filter((v): v is number => v !== null);
  const max = Math.max(0, ...seen);
  return values
    .map((v) => (v === null || max === 0 ? BARS[0] : BARS[Math.min(7, Math.floor((v / max) * 7.999))]))
    .join('');
}

/** `tapline stats`: the daemon's answer as it is (the daemon checks every parameter: a 400 is exit 2). */
export async function fetchStats(ctx: CliContext, source: string, opts: StatsOptions) {
  const { id } = await resolveSource(ctx, source);
  const query = {
    ...(opts.since ? { since: opts.since } : {}),
    ...(opts.until ? { until: opts.until } : {}),
    ...(opts.by ? { by: opts.by } : {}),
    ...(opts.route ? { route: opts.route } : {}),
    ...(opts.where ? { where: opts.where } : {}),
    ...(opts.compare ? { compare: opts.compare } : {}),
    series: '1' as const,
  };
  try {
    return await request(ctx, contract.getStats, { params: { trafficSourceId: id }, query });
  } catch (error) {
    // The daemon checks every parameter and names it; a refused one is bad usage of the command (exit 2).
    if (error instanceof ApiError && error.status === 400) throw usage(error.message);
    throw error;
  }
}

/** Points of a sparkline at most: a terminal row has room for a few columns beside it. */
const SPARK_POINTS = 16;

/** The series folded into at most SPARK_POINTS points, adjacent ones combined. */
function squeeze(
  values: readonly (number | null)[],
  combine: (a: number | null, b: number | null) => number | null,
): (number | null)[] {
  const per = Math.ceil(values.length / SPARK_POINTS);
  const out: (number | null)[] = [];
  for (let i = 0; i < values.length; i += per) out.push(values.slice(i, i + per).reduce((a, b) => combine(a, b), null));
  return out;
}
const sum = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : a + b);
const most = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));

const sortKey: Record<StatsSort, (g: StatsGroup) => number> = {
  count: (g) => g.count,
  p95: (g) => g.p95 ?? -1,
  p99: (g) => g.p99 ?? -1,
  errors: (g) => g.errorRate,
};

/** The change against `previous`: worse in red, better in green, with an arrow that survives NO_COLOR. */
function change(
  ctx: TableStyle,
  now: number | null,
  before: number | null | undefined,
  higherIsWorse: boolean,
): string {
  if (now === null || before === null || before === undefined || before === 0) return '';
  const ratio = (now - before) / before;
  if (Math.abs(ratio) < 0.005) return '=';
  const text = `${ratio > 0 ? '↑' : '↓'}${Math.abs(ratio * 100).toFixed(0)}%`;
  return ratio > 0 === higherIsWorse ? ctx.colors.red(text) : ctx.colors.green(text);
}

const percent = (rate: number) => `${(rate * 100).toFixed(rate > 0 && rate < 0.1 ? 1 : 0)}%`;
const ms = (v: number | null) => (v === null ? '-' : formatLatency(v));

/** The groups in the order the table shows them, largest first by `sort` (count by default). */
export function sortGroups(groups: readonly StatsGroup[], sort: StatsSort = 'count'): StatsGroup[] {
  return [...groups].sort((a, b) => sortKey[sort](b) - sortKey[sort](a));
}

/** The table's lines, the header first, then one per group in `sortGroups` order. */
export function statsTable(ctx: TableStyle, answer: StatsAnswer, opts: Pick<StatsOptions, 'sort'>): string[] {
  const rows = sortGroups(answer.data, opts.sort);
  const compared = answer.meta.previous !== undefined;
  // Colour codes are added after padding; the change columns are padded by their plain text.
  const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');
  return renderTable(
    rows,
    [
      ...(rows.some((g) => g.method) ? [{ header: 'METHOD', value: (g: StatsGroup) => g.method ?? '' }] : []),
      ...(rows.some((g) => g.status) ? [{ header: 'STATUS', value: (g: StatsGroup) => g.status ?? '' }] : []),
      { header: 'COUNT', value: (g: StatsGroup) => String(g.count), align: 'right' as const },
      ...(compared
        ? [
            {
              header: 'Δ',
              value: (g: StatsGroup) => plain(change(ctx, g.count, g.previous?.count, false)),
              color: (g: StatsGroup) => change(ctx, g.count, g.previous?.count, false),
            },
          ]
        : []),
      { header: 'ERRORS', value: (g: StatsGroup) => percent(g.errorRate), align: 'right' as const },
      { header: 'P50', value: (g: StatsGroup) => ms(g.p50), align: 'right' as const, optional: true },
      { header: 'P95', value: (g: StatsGroup) => ms(g.p95), align: 'right' as const },
      ...(compared
        ? [
            {
              header: 'Δ',
              value: (g: StatsGroup) => plain(change(ctx, g.p95, g.previous?.p95, true)),
              color: (g: StatsGroup) => change(ctx, g.p95, g.previous?.p95, true),
            },
          ]
        : []),
      { header: 'P99', value: (g: StatsGroup) => ms(g.p99), align: 'right' as const, optional: true },
      { header: 'MAX', value: (g: StatsGroup) => ms(g.max), align: 'right' as const, optional: true },
      {
        header: 'REQUESTS',
        value: (g: StatsGroup) =>
          sparkline(
            squeeze(
              (g.series ?? []).map((p) => p.count),
              sum,
            ),
          ),
        optional: true,
      },
      // The largest p95 of the points folded together: a slow spell stays visible.
      {
        header: 'P95 OVER TIME',
        value: (g: StatsGroup) =>
          sparkline(
            squeeze(
              (g.series ?? []).map((p) => p.p95),
              most,
            ),
          ),
        optional: true,
      },
      ...(rows.some((g) => g.route) ? [{ header: 'ROUTE', value: (g: StatsGroup) => g.route ?? '', flex: true }] : []),
    ],
    { ...ctx, width: ctx.width },
  );
}

const oneOf =
  <T extends string>(name: string, values: readonly T[]) =>
  (text: string): T => {
    const found = values.find((v) => v === text);
    if (found === undefined) throw new InvalidArgumentError(`${name} is one of ${values.join(', ')}`);
    return found;
  };

export const registerStats: Register = (program, context) => {
  const stats = program
    .command('stats <source>')
    .description('per-route request counts, error rates and latency percentiles over a window (docs/statistics.md)')
    .option('--since <when>', 'from this long ago (15m, 1h, 7d) or this ISO 8601 time; default 1h')
    .option('--until <when>', 'up to this long ago or this ISO 8601 time; default now')
    .option('--by <grouping>', `group by ${STATS_GROUPINGS.join(' | ')}`, oneOf('--by', STATS_GROUPINGS))
    .option('--route <template>', 'one route template, such as /users/{id}')
    .option('--where <expr>', 'filter on route, method, status (by class), level and domain')
    .option('--sort <key>', `sort by ${SORTS.join(' | ')}`, oneOf('--sort', SORTS))
    .option('--compare <window>', 'compare with the previous window or one a duration back (previous, 1d, 7d)')
    .action(async (source: string, opts: StatsOptions, cmd: Command) => {
      const ctx = context(cmd);
      const answer = await fetchStats(ctx, source, opts);
      if (ctx.mode === 'json') return ctx.print(answer.text.trimEnd());
      if (ctx.mode === 'ndjson') return answer.data.data.forEach((g) => ctx.print(JSON.stringify(g)));
      if (answer.data.data.length === 0)
        return ctx.print(`no traffic from ${answer.data.meta.since} to ${answer.data.meta.until}`);
      for (const line of statsTable(ctx, answer.data, opts)) ctx.print(line);
      if (answer.data.meta.retention) ctx.print(ctx.colors.dim(answer.data.meta.retention.note));
    });
  example(
    stats,
    'tapline stats shop --since 24h --sort p95',
    'tapline stats shop --compare 1d --by route',
    'tapline stats shop --json | jq ".data[0]"',
  );
};
