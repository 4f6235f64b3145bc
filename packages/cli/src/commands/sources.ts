import type { Command } from 'commander';
import { contract, formatLocalTime, type TrafficSource } from '@tapline/shared';
import { request, type Answer } from '../api.js';
import { confirm } from '../confirm.js';
import type { CliContext } from '../context.js';
import { pagesOf, printList, type PageAnswer } from '../list-output.js';
import { pageLimit, pagingOptions, type PagingOptions } from '../options.js';
import { example } from '../help.js';
import type { Register } from '../register.js';
import { resolveSource } from '../resolve.js';
import { renderTable } from '../table.js';

export function listSources(ctx: CliContext, opts: PagingOptions): AsyncGenerator<PageAnswer<TrafficSource>> {
  return pagesOf((page) => request(ctx, contract.listTrafficSources, { query: { page, ...pageLimit(opts) } }), opts);
}

export const addSource = (ctx: CliContext, name: string, trafficDomain: string) =>
  request(ctx, contract.createTrafficSource, { body: { name, trafficDomain } });

export async function renameSource(ctx: CliContext, source: string, name: string): Promise<Answer<TrafficSource>> {
  const { id } = await resolveSource(ctx, source);
  return request(ctx, contract.updateTrafficSource, { params: { trafficSourceId: id }, body: { name } });
}

/** Resolves first and asks second, so the question names a source that exists. */
export async function removeSource(
  ctx: CliContext,
  source: string,
  yes: boolean | undefined,
): Promise<{ id: string; removed: boolean }> {
  const { id, name } = await resolveSource(ctx, source);
  if (!(await confirm(ctx, `Remove traffic source ${name ?? id} and all of its traffic, logs and webhooks?`, yes)))
    return { id, removed: false };
  await request(ctx, contract.deleteTrafficSource, { params: { trafficSourceId: id } });
  return { id, removed: true };
}

export function sourceTable(ctx: CliContext, rows: readonly TrafficSource[]): string[] {
  return renderTable(
    rows,
    [
      { header: 'NAME', value: (s) => s.name, color: (_, cell) => ctx.colors.bold(cell) },
      { header: 'DOMAIN', value: (s) => s.trafficDomain },
      { header: 'ID', value: (s) => s.id, color: (_, cell) => ctx.colors.dim(cell) },
      { header: 'CREATED', value: (s) => formatLocalTime(s.createdAt) },
    ],
    { ...ctx, width: ctx.width },
  );
}

function printSource(ctx: CliContext, answer: Answer<TrafficSource>, verb: string): void {
  if (ctx.mode !== 'table') return ctx.print(answer.text.trimEnd());
  const s = answer.data;
  ctx.print(`${verb} ${ctx.colors.bold(s.name)} (${s.trafficDomain})  ${ctx.colors.dim(s.id)}`);
}

export const registerSources: Register = (program, context) => {
  const sources = program.command('sources').description('list, add, rename and remove traffic sources');
  example(sources, 'tapline sources list', 'tapline sources add shop shop.example.com');

  const list = pagingOptions(sources.command('list').alias('ls').description('list your traffic sources')).action(
    async (opts: PagingOptions, cmd: Command) => {
      const ctx = context(cmd);
      await printList(ctx, listSources(ctx, opts), (rows) => sourceTable(ctx, rows), 'traffic sources');
    },
  );
  example(list, 'tapline sources list', 'tapline sources list --ndjson --all | jq -r .name');

  const add = sources
    .command('add <name> <trafficDomain>')
    .description('add a traffic source for the application at trafficDomain')
    .action(async (name: string, domain: string, _opts: unknown, cmd: Command) => {
      const ctx = context(cmd);
      printSource(ctx, await addSource(ctx, name, domain), 'added');
    });
  example(add, 'tapline sources add shop shop.example.com');

  const rename = sources
    .command('rename <source> <name>')
    .description('rename a traffic source (given by name or id)')
    .action(async (source: string, name: string, _opts: unknown, cmd: Command) => {
      const ctx = context(cmd);
      printSource(ctx, await renameSource(ctx, source, name), 'renamed to');
    });
  example(rename, 'tapline sources rename shop shop-eu');

  const remove = sources
    .command('remove <source>')
    .alias('rm')
    .description('remove a traffic source and all of its data (asks first)')
    .option('-y, --yes', 'do not ask (required when standard input is not a terminal)')
    .action(async (source: string, opts: { yes?: boolean }, cmd: Command) => {
      const ctx = context(cmd);
      const result = await removeSource(ctx, source, opts.yes);
      if (ctx.mode !== 'table') return ctx.print(JSON.stringify(result));
      ctx.note(result.removed ? `removed traffic source ${source}` : 'cancelled; nothing was removed');
    });
  example(remove, 'tapline sources remove shop --yes');
};
