import type { Command } from 'commander';
import { ApiError, contract, parseRule, type RouteRule, type RouteSuggestion } from '@tapline/shared';
import { type Answer, everyPage, request } from '../api.js';
import type { CliContext } from '../context.js';
import { notFound, usage } from '../exit-codes.js';
import { example } from '../help.js';
import { pagesOf, printList } from '../list-output.js';
import { pageLimit, pagingOptions, type PagingOptions } from '../options.js';
import type { Register } from '../register.js';
import { resolveSource } from '../resolve.js';
import { type Column, renderTable } from '../table.js';

/** A template as typed, in the daemon's spelling; a malformed one is bad usage (exit 2), never sent. */
function ruleTemplate(typed: string): string {
  const parsed = parseRule(typed);
  if ('problem' in parsed)
    throw usage(
      `${typed}: ${parsed.problem}`,
      "a rule is a path template such as '/products/{slug}' (quote it for the shell)",
    );
  return parsed.template;
}

/** `tapline routes add`: a 409 (a rule of the same paths) exits 7 as every refusal of a valid request does. */
export async function addRule(ctx: CliContext, source: string, typed: string): Promise<Answer<RouteRule>> {
  const template = ruleTemplate(typed);
  const { id } = await resolveSource(ctx, source);
  try {
    return await request(ctx, contract.createRouteRule, { params: { trafficSourceId: id }, body: { template } });
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) throw usage(error.message);
    throw error;
  }
}

/** `tapline routes remove`: the rule found by its template (any spelling), then removed by id. */
export async function removeRule(ctx: CliContext, source: string, typed: string): Promise<RouteRule> {
  const template = ruleTemplate(typed);
  const { id, name = source } = await resolveSource(ctx, source);
  for await (const page of everyPage((page) =>
    request(ctx, contract.listRouteRules, { params: { trafficSourceId: id }, query: { page, limit: 100 } }),
  )) {
    const rule = page.fresh.find((r) => r.template === template);
    if (rule) {
      await request(ctx, contract.deleteRouteRule, { params: { trafficSourceId: id, ruleId: rule.id } });
      return rule;
    }
    if (page.data.data.length < 100) break;
  }
  throw notFound(`${name} has no rule ${template}`, `list them with \`tapline routes rules ${name}\``);
}

/** "412 distinct values under /products/, each seen 1–3 times (blue-shirt, red-hat, …)". */
export const evidence = (s: RouteSuggestion): string =>
  `${s.values} distinct values under ${s.parent}, each seen ${s.minSeen === s.maxSeen ? `${s.minSeen}` : `${s.minSeen}–${s.maxSeen}`} ${s.maxSeen === 1 ? 'time' : 'times'} (${s.examples.join(', ')}${s.values > s.examples.length ? ', …' : ''})`;

/** ENTRIES, the columns between, TEMPLATE: the templates' and the rules' tables. */
function entriesTable<T extends { readonly entries: number; readonly template: string }>(
  ctx: CliContext,
  rows: readonly T[],
  between: readonly Column<T>[],
): string[] {
  return renderTable(
    rows,
    [
      { header: 'ENTRIES', value: (r) => String(r.entries), align: 'right' },
      ...between,
      { header: 'TEMPLATE', value: (r) => r.template, flex: true },
    ],
    { ...ctx, width: ctx.width },
  );
}

export const registerRoutes: Register = (program, context) => {
  const routes = program
    .command('routes')
    .description('route templates of a traffic source, and the rules that make them (docs/statistics.md)');
  example(routes, 'tapline routes list shop', "tapline routes add shop '/products/{slug}'");

  const list = pagingOptions(
    routes
      .command('list <source>')
      .alias('ls')
      .description('templates with where each came from (sent, rule, inferred) and how many stored entries it holds'),
  ).action(async (source: string, opts: PagingOptions, cmd: Command) => {
    const ctx = context(cmd);
    const { id } = await resolveSource(ctx, source);
    const pages = pagesOf(
      (page) =>
        request(ctx, contract.listRoutes, { params: { trafficSourceId: id }, query: { page, ...pageLimit(opts) } }),
      opts,
    );
    await printList(
      ctx,
      pages,
      (rows) => entriesTable(ctx, rows, [{ header: 'ORIGIN', value: (r) => r.origin }]),
      'routes',
    );
  });
  example(
    list,
    'tapline routes list shop',
    'tapline routes list shop --json | jq ".data[] | select(.origin == \\"rule\\")"',
  );

  const rules = pagingOptions(
    routes.command('rules <source>').description('the rules of a source, with the stored entries each holds'),
  ).action(async (source: string, opts: PagingOptions, cmd: Command) => {
    const ctx = context(cmd);
    const { id } = await resolveSource(ctx, source);
    const pages = pagesOf(
      (page) =>
        request(ctx, contract.listRouteRules, { params: { trafficSourceId: id }, query: { page, ...pageLimit(opts) } }),
      opts,
    );
    await printList(ctx, pages, (rows) => entriesTable(ctx, rows, []), 'rules');
  });
  example(rules, 'tapline routes rules shop');

  const add = routes
    .command('add <source> <template>')
    .description(
      'file every path the template matches under it, stored entries too (moved in the background); :name and <name> are taken as {name}',
    )
    .action(async (source: string, template: string, _opts: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const answer = await addRule(ctx, source, template);
      if (ctx.mode !== 'table') return ctx.print(answer.text.trimEnd());
      ctx.print(`added rule ${answer.data.template}`);
      ctx.note(
        ctx.colors.dim(
          'stored entries it matches move to it in the background; `tapline routes list` shows them arrive',
        ),
      );
    });
  example(add, "tapline routes add shop '/products/{slug}'", "tapline routes add shop '/docs/:section/:page'");

  const remove = routes
    .command('remove <source> <template>')
    .alias('rm')
    .description('remove a rule; its entries go back to the template inference (or their client) gives them')
    .action(async (source: string, template: string, _opts: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const rule = await removeRule(ctx, source, template);
      if (ctx.mode !== 'table')
        return ctx.print(JSON.stringify({ id: rule.id, template: rule.template, removed: true }));
      ctx.print(`removed rule ${rule.template}`);
    });
  example(remove, "tapline routes remove shop '/products/{slug}'");

  const suggest = routes
    .command('suggest <source>')
    .description(
      'rules worth adding: sibling constants under one parent (/products/blue-shirt, /products/red-hat, …), with their evidence',
    )
    .action(async (source: string, _opts: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const { id, name = source } = await resolveSource(ctx, source);
      const answer = await request(ctx, contract.suggestRoutes, { params: { trafficSourceId: id } });
      if (ctx.mode === 'json') return ctx.print(answer.text.trimEnd());
      if (ctx.mode === 'ndjson') return answer.data.data.forEach((s) => ctx.print(JSON.stringify(s)));
      if (answer.data.data.length === 0)
        return ctx.print(`no suggestion: no parent of ${name}'s paths has 5 or more sibling constants`);
      for (const line of renderTable(
        answer.data.data,
        [
          { header: 'RULE', value: (s) => s.template },
          { header: 'EVIDENCE', value: evidence, flex: true },
        ],
        { ...ctx, width: ctx.width },
      ))
        ctx.print(line);
      ctx.note(ctx.colors.dim(`accept one with: tapline routes add ${name} '${answer.data.data[0]?.template ?? ''}'`));
    });
  example(suggest, 'tapline routes suggest shop', 'tapline routes suggest shop --json | jq -r ".data[].template"');
};
