import type { Command } from 'commander';
import { contract, formatLocalTime, type WebhookAttempt, type WebhookTestResult } from '@tapline/shared';
import { request, type Answer } from '../api.js';
import type { CliContext } from '../context.js';
import { CliError, EXIT } from '../exit-codes.js';
import { example } from '../help.js';
import { pagesOf, printList, type PageAnswer } from '../list-output.js';
import { pagingOptions, type PagingOptions } from '../options.js';
import type { Register } from '../register.js';
import { resolveWebhookId } from '../resolve.js';
import { renderTable } from '../table.js';

/** `tapline webhooks test <id>`: the daemon sends one test message now and reports the attempt. */
export async function testWebhook(ctx: CliContext, idOrPrefix: string): Promise<Answer<WebhookTestResult>> {
  const webhookId = await resolveWebhookId(ctx, idOrPrefix);
  return request(ctx, contract.testWebhook, { params: { webhookId } });
}

/** `tapline webhooks deliveries <id>`: attempts to deliver the webhook's messages, newest first. */
export async function listDeliveries(
  ctx: CliContext,
  idOrPrefix: string,
  opts: PagingOptions,
): Promise<AsyncGenerator<PageAnswer<WebhookAttempt>>> {
  const webhookId = await resolveWebhookId(ctx, idOrPrefix);
  return pagesOf(
    (page) =>
      request(ctx, contract.listWebhookDeliveries, {
        params: { webhookId },
        query: { page, ...(opts.limit ? { limit: opts.limit } : {}) },
      }),
    opts,
  );
}

function paintOutcome(ctx: CliContext, outcome: WebhookAttempt['outcome'], text: string): string {
  const c = ctx.colors;
  return outcome === 'delivered' ? c.green(text) : outcome === 'retrying' ? c.yellow(text) : c.red(text);
}

export function deliveryTable(ctx: CliContext, rows: readonly WebhookAttempt[]): string[] {
  const c = ctx.colors;
  return renderTable(
    rows,
    [
      { header: 'TIME', value: (a) => formatLocalTime(a.createdAt) },
      { header: 'KIND', value: (a) => a.kind },
      { header: 'TRY', value: (a) => String(a.attempt) },
      { header: 'OUTCOME', value: (a) => a.outcome, color: (a, cell) => paintOutcome(ctx, a.outcome, cell) },
      { header: 'STATUS', value: (a) => (a.statusCode === null ? '-' : String(a.statusCode)) },
      { header: 'MS', value: (a) => String(a.durationMs) },
      { header: 'NEXT TRY', value: (a) => (a.nextAttemptAt ? formatLocalTime(a.nextAttemptAt) : '') },
      { header: 'ERROR', value: (a) => a.error ?? '', flex: true, color: (_, cell) => c.dim(cell) },
    ],
    ctx,
  );
}

/**
 * The outcome is the command's output, said once on stdout; a failed test is also a failed command
 * (exit 1, with nothing more on stderr), so scripts can check a webhook with `tapline webhooks test`.
 */
export function printTestResult(ctx: CliContext, answer: Answer<WebhookTestResult>): void {
  const { delivered, attempt } = answer.data;
  const status = attempt.statusCode === null ? 'no answer' : `answered ${attempt.statusCode}`;
  if (ctx.mode !== 'table') ctx.print(answer.text.trimEnd());
  else if (delivered)
    ctx.print(`${ctx.colors.green('delivered')} test message (${status} in ${attempt.durationMs} ms)`);
  else ctx.print(`${ctx.colors.red('not delivered')}: ${attempt.error ?? status}`);
  if (!delivered) throw new CliError(EXIT.UNEXPECTED, '');
}

/** Adds `test` and `deliveries` to the `webhooks` command (created here if nothing else did). */
export const registerWebhookDeliveries: Register = (program, context) => {
  const webhooks =
    program.commands.find((c) => c.name() === 'webhooks') ??
    program.command('webhooks').description('manage the webhooks of a source');

  const test = webhooks
    .command('test <webhookId>')
    .description('send a test message to a webhook now (exit 1 when it is not delivered)')
    .action(async (webhookId: string, _opts: unknown, cmd: Command) => {
      const ctx = context(cmd);
      printTestResult(ctx, await testWebhook(ctx, webhookId));
    });
  example(test, 'tapline webhooks test 019a4c2e-7b1d-7c3e-9f00-3a1b2c3d4e5f');

  const deliveries = pagingOptions(
    webhooks
      .command('deliveries <webhookId>')
      .description("attempts to deliver a webhook's messages, with status and error, newest first"),
  ).action(async (webhookId: string, opts: PagingOptions, cmd: Command) => {
    const ctx = context(cmd);
    await printList(
      ctx,
      await listDeliveries(ctx, webhookId, opts),
      (rows) => deliveryTable(ctx, rows),
      'delivery attempts',
    );
  });
  example(deliveries, 'tapline webhooks deliveries 019a4c2e-7b1d-7c3e-9f00-3a1b2c3d4e5f --limit 20');
};
