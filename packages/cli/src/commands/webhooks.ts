import { InvalidArgumentError, Option, type Command } from 'commander';
import {
  contract,
  formatLocalTime,
  WEBHOOK_LEVELS,
  WEBHOOK_TYPES,
  type CreatedWebhook,
  type Webhook,
} from '@tapline/shared';
import { request, type Answer } from '../api.js';
import { confirm } from '../confirm.js';
import type { CliContext } from '../context.js';
import { example } from '../help.js';
import { pagesOf, printList, type PageAnswer } from '../list-output.js';
import { pageLimit, pagingOptions, type PagingOptions } from '../options.js';
import type { Register } from '../register.js';
import { resolveSource, resolveWebhookId } from '../resolve.js';
import { paintLevel } from '../style.js';
import { renderTable } from '../table.js';

export async function listWebhooks(
  ctx: CliContext,
  source: string,
  opts: PagingOptions,
): Promise<AsyncGenerator<PageAnswer<Webhook>>> {
  const { id } = await resolveSource(ctx, source);
  return pagesOf(
    (page) =>
      request(ctx, contract.listWebhooks, { params: { trafficSourceId: id }, query: { page, ...pageLimit(opts) } }),
    opts,
  );
}

export interface WebhookInput {
  readonly type: (typeof WEBHOOK_TYPES)[number];
  readonly level: (typeof WEBHOOK_LEVELS)[number];
  readonly value: string;
}

export async function addWebhook(
  ctx: CliContext,
  source: string,
  input: WebhookInput,
): Promise<Answer<CreatedWebhook>> {
  const { id } = await resolveSource(ctx, source);
  return request(ctx, contract.createWebhook, { params: { trafficSourceId: id }, body: input });
}

export async function deleteWebhook(
  ctx: CliContext,
  idOrPrefix: string,
  yes: boolean | undefined,
): Promise<{ id: string; deleted: boolean }> {
  const webhookId = await resolveWebhookId(ctx, idOrPrefix);
  if (!(await confirm(ctx, `Delete webhook ${webhookId}?`, yes))) return { id: webhookId, deleted: false };
  await request(ctx, contract.deleteWebhook, { params: { webhookId } });
  return { id: webhookId, deleted: true };
}

export function webhookTable(ctx: CliContext, rows: readonly Webhook[]): string[] {
  const c = ctx.colors;
  return renderTable(
    rows,
    [
      { header: 'ID', value: (w) => w.id, color: (_, cell) => c.dim(cell) },
      { header: 'TYPE', value: (w) => w.type },
      { header: 'LEVEL', value: (w) => w.level, color: (w, cell) => paintLevel(c, w.level.toUpperCase(), cell) },
      { header: 'VALUE', value: (w) => w.value, flex: true },
      { header: 'CREATED', value: (w) => formatLocalTime(w.createdAt) },
    ],
    ctx,
  );
}

/** Like commander's choices, but in any case: traffic levels are upper case, webhook levels lower. */
const oneOf =
  <T extends string>(values: readonly T[]) =>
  (text: string): T => {
    const found = values.find((v) => v === text.toLowerCase());
    if (!found) throw new InvalidArgumentError(`must be one of ${values.join(', ')}`);
    return found;
  };

export const registerWebhooks: Register = (program, context) => {
  const webhooks = program.command('webhooks').description('list, add and delete the webhooks of a source');
  example(webhooks, 'tapline webhooks list shop');

  const list = pagingOptions(
    webhooks.command('list <source>').alias('ls').description('list the webhooks of a source'),
  ).action(async (source: string, opts: PagingOptions, cmd: Command) => {
    const ctx = context(cmd);
    await printList(ctx, await listWebhooks(ctx, source, opts), (rows) => webhookTable(ctx, rows), 'webhooks');
  });
  example(list, 'tapline webhooks list shop');

  const add = webhooks
    .command('add <source>')
    .description('notify a target of each new traffic entry of one level')
    .addOption(
      new Option('--type <type>', 'kind of target')
        .choices(WEBHOOK_TYPES)
        .argParser(oneOf(WEBHOOK_TYPES))
        .makeOptionMandatory(),
    )
    .addOption(
      new Option('--level <level>', 'the level of entries to notify about')
        .choices(WEBHOOK_LEVELS)
        .argParser(oneOf(WEBHOOK_LEVELS))
        .makeOptionMandatory(),
    )
    .requiredOption('--value <url>', 'the target: a Discord or Slack webhook URL, or any http(s) URL for --type http')
    .action(async (source: string, opts: WebhookInput, cmd: Command) => {
      const ctx = context(cmd);
      const answer = await addWebhook(ctx, source, { type: opts.type, level: opts.level, value: opts.value });
      if (ctx.mode !== 'table') return ctx.print(answer.text.trimEnd());
      const w = answer.data;
      ctx.print(`added ${w.type} webhook ${w.id} for ${w.level} traffic -> ${w.value}`);
      if (w.secret) {
        ctx.print(`secret ${w.secret}`);
        ctx.note(ctx.colors.yellow('keep the secret now: it is shown only once (verify X-Tapline-Signature with it)'));
      }
    });
  example(
    add,
    'tapline webhooks add shop --type discord --level fatal --value https://discord.com/api/webhooks/123/abc',
  );

  const del = webhooks
    .command('delete <webhookId>')
    .alias('rm')
    .description('delete a webhook (asks first); the id may be any unique prefix of 8 or more characters')
    .option('-y, --yes', 'do not ask (required when standard input is not a terminal)')
    .action(async (webhookId: string, opts: { yes?: boolean }, cmd: Command) => {
      const ctx = context(cmd);
      const result = await deleteWebhook(ctx, webhookId, opts.yes);
      if (ctx.mode !== 'table') return ctx.print(JSON.stringify(result));
      ctx.note(result.deleted ? `deleted webhook ${result.id}` : 'cancelled; nothing was deleted');
    });
  example(del, 'tapline webhooks delete 019a4c2e-7b1d-7c3e-9f00-3a1b2c3d4e5f --yes');
};
