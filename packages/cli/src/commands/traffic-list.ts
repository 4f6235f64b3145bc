import { InvalidArgumentError, type Command } from 'commander';
import ms from 'ms';
import {
  contract,
  formatLatency,
  formatLocalTime,
  trafficTarget,
  uniquePrefixLength,
  type HttpTraffic,
} from '@tapline/shared';
import { request } from '../api.js';
import type { CliContext } from '../context.js';
import { example } from '../help.js';
import { pagesOf, printList, type PageAnswer } from '../list-output.js';
import { usage } from '../exit-codes.js';
import { filterOptions, pageLimit, pagingOptions, type FilterFlags, type PagingOptions } from '../options.js';
import type { ContextFactory } from '../register.js';
import { resolveDomain, resolvePathname, resolveSource } from '../resolve.js';
import { paintLevel, paintStatus } from '../style.js';
import { renderTable } from '../table.js';
import { checkedWhere } from '../where.js';

export interface TrafficListOptions extends PagingOptions, FilterFlags {
  /** A duration back from now (`15m`, `2h`, `1d`) or an ISO 8601 date or date-time. */
  readonly since?: string;
  readonly until?: string;
}

/** `15m` means 15 minutes before `now`; anything else must be an ISO 8601 date or date-time. */
export function timeBound(text: string, now: number): string {
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- ms reads any text (its types list only the forms it knows); what it cannot read is NaN or undefined, refused below
  const span = /^\d/.test(text) && !/^\d{4}-/.test(text) ? ms(text as ms.StringValue) : undefined;
  if (typeof span === 'number' && Number.isFinite(span)) return new Date(now - span).toISOString();
  const date = /^\d{4}-\d{2}-\d{2}/.test(text) ? new Date(text) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime()))
    throw new InvalidArgumentError('must be a duration such as 15m, 2h or 7d, or an ISO 8601 date-time');
  return date.toISOString();
}

/** Checks the flag when parsed (a usage error); the bound itself is computed at request time. */
export const checkedTime = (text: string) => {
  timeBound(text, Date.now());
  return text;
};

/** The list query the flags stand for; `--domain`/`--path` names become the API's ids here. */
export async function trafficFilters(ctx: CliContext, sourceId: string, opts: TrafficListOptions, now = Date.now()) {
  const q = checkedWhere(opts.where);
  const startDate = opts.since ? timeBound(opts.since, now) : undefined;
  const endDate = opts.until ? timeBound(opts.until, now) : undefined;
  // Checked here so that the message names the flags, not the API's startDate and endDate.
  if (startDate && endDate && startDate > endDate)
    throw usage(
      `--since (${startDate}) is after --until (${endDate}): nothing can match`,
      'a duration counts back from now: --since 1h --until 1m is the hour before the last minute',
    );
  const domainId = opts.domain ? await resolveDomain(ctx, sourceId, opts.domain) : undefined;
  const pathnameId = opts.path ? await resolvePathname(ctx, sourceId, opts.path, domainId) : undefined;
  return {
    ...(opts.method ? { method: opts.method.toUpperCase() } : {}),
    ...(opts.status ? { status: opts.status } : {}),
    ...(opts.level ? { level: opts.level.toUpperCase() } : {}),
    ...(startDate ? { startDate } : {}),
    ...(endDate ? { endDate } : {}),
    ...(domainId ? { domainId } : {}),
    ...(pathnameId ? { pathnameId } : {}),
    ...(q ? { q } : {}),
  };
}

/** `tapline traffic list`: one page of the source's traffic, or every page with `--all`. */
export async function listTraffic(
  ctx: CliContext,
  source: string,
  opts: TrafficListOptions,
  now = Date.now(),
): Promise<AsyncGenerator<PageAnswer<HttpTraffic>>> {
  const { id } = await resolveSource(ctx, source);
  const filters = await trafficFilters(ctx, id, opts, now);
  return pagesOf(
    (page) =>
      request(ctx, contract.listTraffic, {
        params: { trafficSourceId: id },
        query: { ...filters, page, ...pageLimit(opts) },
      }),
    opts,
  );
}

/**
 * The short id a narrow table shows: at least the 12 hex digits of the UUIDv7's millisecond
 * (`019a4c2e-7b1d`, 13 characters), so it names one entry unless two share a millisecond, and
 * longer when rows on screen share even that. Any unique prefix of 8 or more is accepted back.
 */
const SHORT_ID = 13;

/** `10:04:05.123` when every row is from one day, else `11-21 10:04:05`: the date is in `show`. */
function compactTime(rows: readonly HttpTraffic[]): (t: HttpTraffic) => string {
  const day = (t: HttpTraffic) => formatLocalTime(t.createdAt).slice(0, 10);
  const oneDay = rows.every((t) => day(t) === day(rows[0] ?? t));
  return (t) => (oneDay ? formatLocalTime(t.createdAt).slice(11) : formatLocalTime(t.createdAt).slice(5, 19));
}

export function trafficTable(ctx: CliContext, rows: readonly HttpTraffic[]): string[] {
  const c = ctx.colors;
  const idLength = uniquePrefixLength(
    rows.map((t) => t.id),
    SHORT_ID,
  );
  return renderTable(
    rows,
    [
      {
        header: 'TIME',
        value: (t) => formatLocalTime(t.createdAt),
        compact: compactTime(rows),
        color: (_, cell) => c.dim(cell),
      },
      { header: 'METHOD', value: (t) => t.method },
      {
        header: 'STATUS',
        value: (t) => String(t.status),
        color: (t, cell) => paintStatus(c, t.status, cell),
        align: 'right',
      },
      { header: 'LEVEL', value: (t) => t.level, color: (t, cell) => paintLevel(c, t.level, cell) },
      { header: 'LATENCY', value: (t) => formatLatency(t.elapsedTime), align: 'right' },
      { header: 'DOMAIN+PATH', value: trafficTarget, flex: true },
      { header: 'ID', value: (t) => t.id, compact: (t) => t.id.slice(0, idLength), color: (_, cell) => c.dim(cell) },
    ],
    ctx,
  );
}

export function addTrafficList(traffic: Command, context: ContextFactory): void {
  const list = pagingOptions(
    filterOptions(
      traffic
        .command('list <source>')
        .alias('ls')
        .description('list HTTP traffic of a source (by name or id), newest first'),
    )
      .option('--since <when>', 'from this long ago (15m, 2h, 7d) or this ISO 8601 time, inclusive', checkedTime)
      .option('--until <when>', 'up to this ISO 8601 time (or duration ago), inclusive', checkedTime),
  ).action(async (source: string, opts: TrafficListOptions, cmd: Command) => {
    const ctx = context(cmd);
    await printList(ctx, await listTraffic(ctx, source, opts), (rows) => trafficTable(ctx, rows), 'traffic entries');
  });
  example(
    list,
    'tapline traffic list shop --status 5xx --since 15m',
    'tapline traffic list shop --where "latency>500 and path^=/api/"',
    'tapline traffic list shop --path /api/orders --all --ndjson | jq .elapsedTime',
  );
}
