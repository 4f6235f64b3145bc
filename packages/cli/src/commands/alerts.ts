import type { Command } from 'commander';
import {
  ALERT_REPEAT,
  ALERT_SPAN,
  type AlertEvent,
  type AlertRule,
  contract,
  durationMs,
  formatLocalTime,
  formatMetricValue,
  formatSpan,
  pointAtColumn,
  tryParseAlertCondition,
} from '@tapline/shared';
import { request } from '../api.js';
import { confirm } from '../confirm.js';
import type { CliContext } from '../context.js';
import { usage } from '../exit-codes.js';
import { example } from '../help.js';
import { pagesOf, printList } from '../list-output.js';
import { pageLimit, pagingOptions, type PagingOptions } from '../options.js';
import type { Register } from '../register.js';
import { resolveSource, resolveWebhookId } from '../resolve.js';
import { renderTable } from '../table.js';
import type { TableStyle } from './stats.js';

export interface AddAlertOptions {
  readonly when: string;
  readonly route?: string;
  readonly method?: string;
  readonly for?: string;
  readonly window?: string;
  readonly minRequests?: string;
  readonly repeat?: string;
  readonly baseline?: string;
  readonly notify: readonly string[];
}

/** `--when` checked before anything is sent: a mistake is exit 2 with a caret under its column. */
export function checkedWhen(text: string): string {
  const parsed = tryParseAlertCondition(text);
  if (!parsed.ok)
    throw usage(
      `--when: ${parsed.error.reason} at column ${parsed.error.column}`,
      pointAtColumn(parsed.error).replace(/\n/g, '\n  '),
    );
  return text.trim();
}

function checkedSpan(
  flag: string,
  text: string | undefined,
  range: { min: number; max: number },
  allowed: string,
): string | undefined {
  if (text === undefined) return undefined;
  const ms = durationMs(text);
  if (ms === undefined || ms < range.min || ms > range.max)
    throw usage(`${flag} takes a duration from ${allowed}, such as 5m (got "${text}")`);
  return text.trim();
}

function checkedCount(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text.trim())) throw usage(`--min-requests takes a whole number from 0 (got "${text}")`);
  return Number(text);
}

export async function addAlert(ctx: CliContext, source: string, opts: AddAlertOptions) {
  const body = {
    when: checkedWhen(opts.when),
    ...(opts.route ? { route: opts.route } : {}),
    ...(opts.method ? { method: opts.method.toUpperCase() } : {}),
    ...(opts.for ? { for: checkedSpan('--for', opts.for, ALERT_SPAN, '1m to 24h') } : {}),
    ...(opts.window ? { window: checkedSpan('--window', opts.window, ALERT_SPAN, '1m to 24h') } : {}),
    ...(opts.repeat ? { repeat: checkedSpan('--repeat', opts.repeat, ALERT_REPEAT, '1m to 7d') } : {}),
    ...(opts.minRequests === undefined ? {} : { minRequests: checkedCount(opts.minRequests) }),
    ...(opts.baseline ? { baseline: opts.baseline } : {}),
  };
  const ref = await resolveSource(ctx, source);
  const webhookIds: string[] = [];
  for (const w of opts.notify) webhookIds.push(await resolveWebhookId(ctx, w, ref));
  return request(ctx, contract.createAlertRule, { params: { trafficSourceId: ref.id }, body: { ...body, webhookIds } });
}

/** `POST /checkout`, `/checkout`, `POST (every route)` or `every route`. */
const scope = (r: Pick<AlertRule, 'route' | 'method'>) =>
  [r.method, r.route ?? (r.method ? '(every route)' : 'every route')].filter(Boolean).join(' ');
const spans = (r: AlertRule) => `${r.forMs ? `for ${formatSpan(r.forMs)}, ` : ''}window ${formatSpan(r.windowMs)}`;

export function alertTable(ctx: TableStyle, rows: readonly AlertRule[]): string[] {
  const c = ctx.colors;
  return renderTable(
    rows,
    [
      { header: 'ID', value: (r) => r.id, compact: (r) => r.id.slice(0, 13), color: (_, cell) => c.dim(cell) },
      {
        header: 'STATE',
        value: (r) => r.state,
        color: (r, cell) =>
          r.state === 'firing' ? c.red(c.bold(cell)) : r.state === 'pending' ? c.yellow(cell) : cell,
      },
      { header: 'WHEN', value: (r) => r.when },
      { header: 'ON', value: scope, flex: true },
      { header: 'SPANS', value: spans, optional: true },
      {
        header: 'LAST',
        value: (r) =>
          r.lastValue === null ? '-' : `${formatMetricValue(r.metric, r.lastValue)} (${r.lastRequests ?? 0} req)`,
        optional: true,
      },
      {
        header: 'NOTIFIES',
        value: (r) =>
          r.webhookIds.length === 0
            ? 'no target'
            : `${r.webhookIds.length} webhook${r.webhookIds.length === 1 ? '' : 's'}`,
        color: (r, cell) => (r.webhookIds.length === 0 ? c.yellow(cell) : cell),
      },
    ],
    ctx,
  );
}

/** The rules that are firing now, longest firing first: the terminal UI's `a` and the header's count. */
export const firingOf = (rules: readonly AlertRule[]): AlertRule[] =>
  rules.filter((r) => r.state === 'firing').sort((a, b) => Date.parse(a.stateSince) - Date.parse(b.stateSince));

/** Firing rules: where, the condition, since when (and how long at `now`), the last value. */
export function firingTable(ctx: TableStyle, rows: readonly AlertRule[], now: number): string[] {
  const c = ctx.colors;
  return renderTable(
    rows,
    [
      { header: 'ROUTE', value: scope },
      { header: 'WHEN', value: (r) => r.when, color: (_, cell) => c.red(c.bold(cell)) },
      {
        header: 'SINCE',
        value: (r) => `${formatLocalTime(r.stateSince)} (${formatSpan(now - Date.parse(r.stateSince))})`,
      },
      {
        header: 'VALUE',
        value: (r) => (r.lastValue === null ? '-' : formatMetricValue(r.metric, r.lastValue)),
        align: 'right',
      },
      { header: 'REQUESTS', value: (r) => String(r.lastRequests ?? 0), align: 'right', optional: true },
      { header: 'ID', value: (r) => r.id.slice(0, 13), color: (_, cell) => c.dim(cell), optional: true, flex: true },
    ],
    ctx,
  );
}

export function historyTable(ctx: CliContext, rows: readonly AlertEvent[]): string[] {
  const c = ctx.colors;
  const shown = (e: AlertEvent, v: number | null) => {
    const metric = tryParseAlertCondition(e.when);
    return v === null || !metric.ok ? '-' : formatMetricValue(metric.condition.metric, v);
  };
  return renderTable(
    rows,
    [
      { header: 'AT', value: (e) => formatLocalTime(e.at) },
      { header: 'RULE', value: (e) => e.ruleId.slice(0, 13), color: (_, cell) => c.dim(cell) },
      { header: 'WHEN', value: (e) => e.when },
      {
        header: 'CHANGE',
        value: (e) => `${e.from} → ${e.to}`,
        color: (e, cell) => (e.to === 'firing' ? c.red(cell) : e.to === 'resolved' ? c.green(cell) : cell),
      },
      { header: 'VALUE', value: (e) => shown(e, e.value), align: 'right' },
      { header: 'THRESHOLD', value: (e) => shown(e, e.threshold), align: 'right' },
      { header: 'REQUESTS', value: (e) => String(e.requests), align: 'right' },
      {
        header: 'WINDOW',
        value: (e) => `${formatLocalTime(e.windowSince)} – ${formatLocalTime(e.windowUntil)}`,
        optional: true,
        flex: true,
      },
      { header: 'SENT', value: (e) => String(e.notified), align: 'right', optional: true },
    ],
    ctx,
  );
}

const ruleIdOf = (text: string): string => {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text))
    throw usage(`a rule id is a UUID, as \`tapline alerts list <source>\` shows (got "${text}")`);
  return text.toLowerCase();
};

export const registerAlerts: Register = (program, context) => {
  const alerts = program
    .command('alerts')
    .description('alert rules on the route numbers: latency, error rates, traffic (docs/alerts.md)');
  example(alerts, "tapline alerts add shop --when 'p95 > 800ms' --route /checkout --for 5m --notify 019a4c2e");

  const add = alerts
    .command('add <source>')
    .description('add a rule; it fires once when true for --for, and resolves once when false for a whole --window')
    .requiredOption(
      '--when <condition>',
      'p50|p90|p95|p99 > 800ms, error_rate > 5%, client_error_rate > 20%, requests < 10/min, p95 > 2x baseline',
    )
    .option('--route <template>', 'one route template, such as /users/{id} (default: every route)')
    .option('--method <method>', 'one method (default: every method)')
    .option(
      '--for <duration>',
      'how long it must hold before firing, 1m to 24h (default: fire at the first evaluation)',
    )
    .option('--window <duration>', 'the span the metric is computed over, 1m to 24h', '5m')
    .option('--min-requests <n>', 'fewer requests in the window count as not met (not for requests rules)', '10')
    .option('--repeat <duration>', 'remind this often while it stays firing, 1m to 7d (default: never)')
    .option('--baseline <days>', 'for "x baseline": how many previous days, such as 7d', '7d')
    .requiredOption(
      '--notify <webhookId...>',
      'webhooks of the same source to notify (ids, or prefixes unique among its webhooks)',
    )
    .action(async (source: string, opts: AddAlertOptions, cmd: Command) => {
      const ctx = context(cmd);
      const answer = await addAlert(ctx, source, opts);
      if (ctx.mode !== 'table') return ctx.print(answer.text.trimEnd());
      const r = answer.data;
      ctx.print(
        `added alert rule ${r.id}: ${r.when} on ${scope(r)} (${spans(r)}), notifying ${r.webhookIds.length} webhook${r.webhookIds.length === 1 ? '' : 's'}`,
      );
    });
  example(
    add,
    "tapline alerts add shop --when 'error_rate > 5%' --route /orders --method POST --window 10m --notify 019a4c2e",
  );

  const list = pagingOptions(
    alerts
      .command('list <source>')
      .alias('ls')
      .description('list the rules of a source with their state (firing in red)'),
  ).action(async (source: string, opts: PagingOptions, cmd: Command) => {
    const ctx = context(cmd);
    const { id } = await resolveSource(ctx, source);
    const pages = pagesOf(
      (page) =>
        request(ctx, contract.listAlertRules, { params: { trafficSourceId: id }, query: { page, ...pageLimit(opts) } }),
      opts,
    );
    await printList(ctx, pages, (rows) => alertTable(ctx, rows), 'alert rules');
  });
  example(list, 'tapline alerts list shop');

  const history = pagingOptions(
    alerts.command('history <source>').description('every transition of the rules of a source, newest first'),
  ).action(async (source: string, opts: PagingOptions, cmd: Command) => {
    const ctx = context(cmd);
    const { id } = await resolveSource(ctx, source);
    const pages = pagesOf(
      (page) =>
        request(ctx, contract.listAlertHistory, {
          params: { trafficSourceId: id },
          query: { page, ...pageLimit(opts) },
        }),
      opts,
    );
    await printList(ctx, pages, (rows) => historyTable(ctx, rows), 'alert transitions');
  });
  example(history, 'tapline alerts history shop');

  const remove = alerts
    .command('remove <ruleId>')
    .alias('rm')
    .description('delete a rule and its history (asks first)')
    .option('-y, --yes', 'do not ask (required when standard input is not a terminal)')
    .action(async (ruleId: string, opts: { yes?: boolean }, cmd: Command) => {
      const ctx = context(cmd);
      const id = ruleIdOf(ruleId);
      if (!(await confirm(ctx, `Delete alert rule ${id}?`, opts.yes)))
        return ctx.note('cancelled; nothing was deleted');
      await request(ctx, contract.deleteAlertRule, { params: { ruleId: id } });
      if (ctx.mode !== 'table') return ctx.print(JSON.stringify({ id, deleted: true }));
      ctx.note(`deleted alert rule ${id}`);
    });
  example(remove, 'tapline alerts remove 019a4c2e-7b1d-7c3e-9f00-3a1b2c3d4e5f --yes');

  const test = alerts
    .command('test <ruleId>')
    .description("queue a sample firing message to the rule's webhooks")
    .action(async (ruleId: string, _opts: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const answer = await request(ctx, contract.testAlertRule, { params: { ruleId: ruleIdOf(ruleId) } });
      if (ctx.mode !== 'table') return ctx.print(answer.text.trimEnd());
      const n = answer.data.webhookIds.length;
      if (n === 0)
        return ctx.note(ctx.colors.yellow('the rule has no target: its webhooks were deleted; nothing was sent'));
      ctx.print(
        `queued a test message for ${n} webhook${n === 1 ? '' : 's'}; see \`tapline webhooks deliveries <webhookId>\``,
      );
    });
  example(test, 'tapline alerts test 019a4c2e-7b1d-7c3e-9f00-3a1b2c3d4e5f');
};
