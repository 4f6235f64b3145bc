import type { Command } from 'commander';
import { contract, followTraffic, type FollowStatus, type HttpTraffic } from '@tapline/shared';
import type { CliContext } from '../context.js';
import { example } from '../help.js';
import { filterOptions, integer, type FilterFlags } from '../options.js';
import type { ContextFactory, Register } from '../register.js';
import { resolveSource } from '../resolve.js';
import { checkedWhere } from '../where.js';
import { paintLevel, paintStatus } from '../style.js';
import { CELL_WIDTHS as W, entryCells } from '../ui/entry-columns.js';
import { trafficFilters } from './traffic-list.js';
import { trafficGroup } from './traffic.js';

export interface TailOptions extends FilterFlags {
  readonly lines: number;
}

const DEFAULT_LINES = 10;

/** One entry as one line: time, method, status, level, latency, domain+path (coloured like `traffic list`). */
export function tailLine(ctx: Pick<CliContext, 'colors' | 'mode'>, entry: HttpTraffic): string {
  if (ctx.mode !== 'table') return JSON.stringify(entry);
  const c = ctx.colors;
  const cells = entryCells(entry);
  return [
    c.dim(cells.time.padEnd(W.time)),
    cells.method.padEnd(W.method),
    paintStatus(c, entry.status, cells.status.padEnd(W.status)),
    paintLevel(c, entry.level, cells.level.padEnd(W.level)),
    cells.latency.padStart(W.latency),
    cells.target,
  ].join(' ');
}

/** What the follower says about the connection, as notes on stderr: once per outage, once when back. */
export function describeStatus(status: FollowStatus): string | null {
  if (status.state === 'reconnecting' && status.attempt === 1)
    return `tapline: lost the stream (${status.reason}); reconnecting…`;
  if (status.state === 'live' && status.reconnected) return 'tapline: reconnected; resuming after the last entry shown';
  return null;
}

/**
 * `tapline traffic tail`: the last `lines` matching entries, oldest first, then each new one as
 * it is stored, until Ctrl-C. Follows from the newest entry printed, so nothing is lost or
 * repeated between the two, nor across daemon restarts (the follower resumes from its cursor). The
 * page is newest by `createdAt`, the stream in commit order: entries of the page that committed
 * after its newest come again, and the follower drops them by id.
 */
export async function tail(ctx: CliContext, source: string, opts: TailOptions): Promise<void> {
  checkedWhere(opts.where); // before the source is looked up: a typo fails without a round trip
  const { id } = await resolveSource(ctx, source);
  const { q, ...filters } = await trafficFilters(ctx, id, opts);
  let after: string | undefined;
  let shown: string[] = [];
  if (opts.lines > 0) {
    const page = await ctx.client.call(contract.listTraffic, {
      params: { trafficSourceId: id },
      query: { ...filters, ...(q ? { q } : {}), limit: opts.lines },
    });
    for (const entry of [...page.data].reverse()) ctx.print(tailLine(ctx, entry));
    after = page.data[0]?.id;
    shown = page.data.map((entry) => entry.id);
  }
  if (ctx.io.signal.aborted) return;
  await followTraffic(ctx.client, id, {
    filters,
    ...(q ? { q } : {}),
    ...(after ? { after } : {}),
    shown,
    signal: ctx.io.signal,
    onEntry: (entry) => ctx.print(tailLine(ctx, entry)),
    onStatus: (status) => {
      const note = describeStatus(status);
      if (note) ctx.note(note);
    },
  });
}

export function addTrafficTail(traffic: Command, context: ContextFactory): void {
  const cmd = filterOptions(
    traffic
      .command('tail <source>')
      .description('print the last entries of a source (by name or id), then follow new ones until Ctrl-C'),
  )
    // commander prints the default itself: the description must not repeat it.
    .option('-n, --lines <n>', 'how many past entries to print first (0 for none)', integer(0, 1000), DEFAULT_LINES)
    .action(async (source: string, opts: TailOptions, command: Command) => {
      await tail(context(command), source, opts);
    });
  example(
    cmd,
    'tapline traffic tail shop --status 5xx',
    "tapline traffic tail shop --where 'method=POST and path^=/api/' --lines 0 --ndjson | jq .status",
  );
}

export const registerTail: Register = (program, context) => addTrafficTail(trafficGroup(program), context);
