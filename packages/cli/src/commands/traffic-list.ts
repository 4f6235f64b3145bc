import { InvalidArgumentError, type Command } from 'commander';
import ms from 'ms';
import { contract, formatLatency, formatLocalTime, LevelParam, Method, StatusFilter, trafficTarget, type HttpTraffic } from '@tapline/shared';
import type { z } from 'zod';
import { request } from '../api.js';
import type { CliContext } from '../context.js';
import { example } from '../help.js';
import { pagesOf, printList, type PageAnswer } from '../list-output.js';
import { pageLimit, pagingOptions, type PagingOptions } from '../options.js';
import type { ContextFactory } from '../register.js';
import { resolveDomain, resolvePathname, resolveSource } from '../resolve.js';
import { paintLevel, paintStatus } from '../style.js';
import { renderTable } from '../table.js';

export interface TrafficListOptions extends PagingOptions {
  readonly method?: string;
  readonly status?: string;
  readonly level?: string;
  /** A duration back from now (`15m`, `2h`, `1d`) or an ISO 8601 date or date-time. */
  readonly since?: string;
  readonly until?: string;
  readonly domain?: string;
  readonly path?: string;
}

/** Checks a flag with the contract's own schema, so the CLI refuses exactly what the daemon would. */
const checkedBy = (schema: z.ZodType, what: string) => (text: string) => {
  if (!schema.safeParse(text).success) throw new InvalidArgumentError(what);
  return text;
};

/** `15m` means 15 minutes before `now`; anything else must be an ISO 8601 date or date-time. */
export function timeBound(text: string, now: number): string {
  const span = /^\d/.test(text) && !/^\d{4}-/.test(text) ? ms(text as ms.StringValue) : undefined;
  if (typeof span === 'number' && Number.isFinite(span)) return new Date(now - span).toISOString();
  const date = /^\d{4}-\d{2}-\d{2}/.test(text) ? new Date(text) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime())) throw new InvalidArgumentError('expected a duration such as 15m, 2h or 7d, or an ISO 8601 date-time');
  return date.toISOString();
}

/** Checks the flag when parsed (a usage error); the bound itself is computed at request time. */
const checkedTime = (text: string) => {
  timeBound(text, Date.now());
  return text;
};

/** The list query the flags stand for; `--domain`/`--path` names become the API's ids here. */
export async function trafficFilters(ctx: CliContext, sourceId: string, opts: TrafficListOptions, now = Date.now()) {
  const domainId = opts.domain ? await resolveDomain(ctx, sourceId, opts.domain) : undefined;
  const pathnameId = opts.path ? await resolvePathname(ctx, sourceId, opts.path, domainId) : undefined;
  return {
    ...(opts.method ? { method: opts.method.toUpperCase() } : {}),
    ...(opts.status ? { status: opts.status } : {}),
    ...(opts.level ? { level: opts.level.toUpperCase() } : {}),
    ...(opts.since ? { startDate: timeBound(opts.since, now) } : {}),
    ...(opts.until ? { endDate: timeBound(opts.until, now) } : {}),
    ...(domainId ? { domainId } : {}),
    ...(pathnameId ? { pathnameId } : {}),
  };
}

/** `tapline traffic list`: one page of the source's traffic, or every page with `--all`. */
export async function listTraffic(ctx: CliContext, source: string, opts: TrafficListOptions, now = Date.now()): Promise<AsyncGenerator<PageAnswer<HttpTraffic>>> {
  const { id } = await resolveSource(ctx, source);
  const filters = await trafficFilters(ctx, id, opts, now);
  return pagesOf(
    (page) => request(ctx, contract.listTraffic, { params: { trafficSourceId: id }, query: { ...filters, page, ...pageLimit(opts) } }),
    opts,
  );
}

export function trafficTable(ctx: CliContext, rows: readonly HttpTraffic[]): string[] {
  const c = ctx.colors;
  return renderTable(
    rows,
    [
      { header: 'TIME', value: (t) => formatLocalTime(t.createdAt), color: (_, cell) => c.dim(cell) },
      { header: 'METHOD', value: (t) => t.method },
      { header: 'STATUS', value: (t) => String(t.status), color: (t, cell) => paintStatus(c, t.status, cell), align: 'right' },
      { header: 'LEVEL', value: (t) => t.level, color: (t, cell) => paintLevel(c, t.level, cell) },
      { header: 'LATENCY', value: (t) => formatLatency(t.elapsedTime), align: 'right' },
      { header: 'DOMAIN+PATH', value: trafficTarget, flex: true },
      { header: 'ID', value: (t) => t.id, color: (_, cell) => c.dim(cell), optional: true },
    ],
    ctx,
  );
}

export function addTrafficList(traffic: Command, context: ContextFactory): void {
  const list = pagingOptions(
    traffic
      .command('list <source>')
      .alias('ls')
      .description('list HTTP traffic of a source (by name or id), newest first')
      .option('--method <method>', 'GET, POST, PUT, DELETE or PATCH', checkedBy(Method, 'expected GET, POST, PUT, DELETE or PATCH'))
      .option('--status <status>', 'a status code such as 404, or a class such as 5xx', checkedBy(StatusFilter, 'expected a status such as 404 or a class such as 5xx'))
      .option('--level <level>', 'INFO, WARNING or FATAL', checkedBy(LevelParam, 'expected INFO, WARNING or FATAL'))
      .option('--since <when>', 'from this long ago (15m, 2h, 7d) or this ISO 8601 time, inclusive', checkedTime)
      .option('--until <when>', 'up to this ISO 8601 time (or duration ago), inclusive', checkedTime)
      .option('--domain <name>', 'only requests to this domain, such as shop.example.com')
      .option('--path <name>', 'only requests to this path, such as /api/orders'),
  ).action(async (source: string, opts: TrafficListOptions, cmd: Command) => {
    const ctx = context(cmd);
    await printList(ctx, await listTraffic(ctx, source, opts), (rows) => trafficTable(ctx, rows), 'traffic entries');
  });
  example(list, 'tapline traffic list shop --status 5xx --since 15m', 'tapline traffic list shop --path /api/orders --all --ndjson | jq .elapsedTime');
}
