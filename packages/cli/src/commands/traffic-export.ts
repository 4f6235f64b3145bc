import { createWriteStream } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { answerError, buildPath, contract } from '@tapline/shared';
import type { CliContext } from '../context.js';
import { CliError, EXIT, usage } from '../exit-codes.js';
import { fileError, isFileProblem } from '../file-errors.js';
import { example } from '../help.js';
import { filterOptions } from '../options.js';
import type { ContextFactory } from '../register.js';
import { resolveSource } from '../resolve.js';
import { checkedTime, trafficFilters, type TrafficListOptions } from './traffic-list.js';

export interface TrafficExportOptions extends TrafficListOptions {
  readonly har?: boolean;
  readonly output?: string;
}

/**
 * `tapline traffic export`: the daemon's HAR export of every matching entry, piped to a file or
 * stdout as it arrives (never held whole), so an export of any size runs in bounded memory.
 * No time-out: a large export takes as long as it takes; Ctrl-C stops it.
 */
export async function exportTraffic(ctx: CliContext, source: string, opts: TrafficExportOptions): Promise<void> {
  if (!opts.har) throw usage('choose the export format: --har (HAR 1.2, the only one so far)');
  const { id } = await resolveSource(ctx, source);
  const filters = await trafficFilters(ctx, id, opts);
  const query = new URLSearchParams(
    Object.entries(filters).map(([k, v]): [string, string] => [k, String(v)]),
  ).toString();
  const response = await ctx.client.raw(
    `${buildPath(contract.exportHar.path, { trafficSourceId: id })}${query ? `?${query}` : ''}`,
    { signal: ctx.io.signal },
  );
  if (!response.ok) throw answerError(ctx.url, response.status, await response.text());
  if (!response.body) throw new CliError(EXIT.UNEXPECTED, 'the daemon answered without a body');
  const file = opts.output && opts.output !== '-' ? opts.output : undefined;
  const target = file
    ? createWriteStream(file)
    : new Writable({ write: (chunk: Buffer, _enc, done) => (ctx.io.stdout.write(chunk.toString('utf8')), done()) });
  try {
    await pipeline(Readable.fromWeb(response.body), target, { signal: ctx.io.signal });
  } catch (error) {
    throw file && isFileProblem(error) ? fileError('write', file, error) : error;
  }
  if (file) ctx.note(`wrote ${file}`);
}

export function addTrafficExport(traffic: Command, context: ContextFactory): void {
  const cmd = filterOptions(
    traffic.command('export <source>').description('export the traffic of a source (by name or id) as a HAR file'),
  )
    .option('--since <when>', 'from this long ago (15m, 2h, 7d) or this ISO 8601 time, inclusive', checkedTime)
    .option('--until <when>', 'up to this ISO 8601 time (or duration ago), inclusive', checkedTime)
    .option('--har', 'write HAR 1.2 (opens in browser devtools and HAR viewers)')
    .option('-o, --output <file>', 'write to this file instead of stdout')
    .action(async (source: string, opts: TrafficExportOptions, cmd: Command) => {
      await exportTraffic(context(cmd), source, opts);
    });
  example(
    cmd,
    'tapline traffic export shop --har -o shop.har',
    'tapline traffic export shop --status 5xx --since 1h --har > errors.har',
  );
}
