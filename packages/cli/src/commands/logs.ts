import type { Command } from 'commander';
import { contract, formatLocalTime, type CoreLog } from '@tapline/shared';
import { request } from '../api.js';
import type { CliContext } from '../context.js';
import { example } from '../help.js';
import { pagesOf, printList, type PageAnswer } from '../list-output.js';
import { pageLimit, pagingOptions, type PagingOptions } from '../options.js';
import type { Register } from '../register.js';
import { resolveSource } from '../resolve.js';
import { renderTable } from '../table.js';

/** `tapline logs`: the source's core logs (application-side errors), newest first. */
export async function listLogs(
  ctx: CliContext,
  source: string,
  opts: PagingOptions,
): Promise<AsyncGenerator<PageAnswer<CoreLog>>> {
  const { id } = await resolveSource(ctx, source);
  return pagesOf(
    (page) =>
      request(ctx, contract.listCoreLogs, { params: { trafficSourceId: id }, query: { page, ...pageLimit(opts) } }),
    opts,
  );
}

export function logTable(ctx: CliContext, rows: readonly CoreLog[]): string[] {
  const c = ctx.colors;
  return renderTable(
    rows,
    [
      { header: 'TIME', value: (l) => formatLocalTime(l.createdAt), color: (_, cell) => c.dim(cell) },
      { header: 'LAYER', value: (l) => l.layer || '-' },
      { header: 'SOURCE', value: (l) => l.source || '-' },
      {
        header: 'TITLE',
        value: (l) => (l.description ? `${l.title}: ${l.description}` : l.title).replace(/\s+/g, ' '),
        color: (_, cell) => c.red(cell),
        flex: true,
      },
      { header: 'TRAFFIC', value: (l) => l.httpTrafficId ?? '-', color: (_, cell) => c.dim(cell) },
    ],
    ctx,
  );
}

export const registerLogs: Register = (program, context) => {
  const logs = pagingOptions(
    program.command('logs <source>').description('core logs (application errors) of a source, newest first'),
  ).action(async (source: string, opts: PagingOptions, cmd: Command) => {
    const ctx = context(cmd);
    await printList(ctx, await listLogs(ctx, source, opts), (rows) => logTable(ctx, rows), 'core logs');
  });
  example(logs, 'tapline logs shop --limit 50', 'tapline logs shop --all --ndjson | jq -r .stack');
};
