import { createHmac } from 'node:crypto';
import type { AlertPayload, HttpTraffic, Level, Webhook, WebhookLevel } from '@tapline/shared';
import { LEVELS } from '@tapline/shared/lean';
import type { Schemas } from '../http/schemas.js';
import { alertCard } from '../alerts/message.js';
import type { z } from 'zod';
import { schemaOnFirstUse, type Zod } from '../zod-on-first-use.js';
import { discordEscape, joinRich, plain, render, type Rich, rich, slackEscape } from './escape.js';
import type { DeliveryRow, WebhookRow } from './table.js';

/** What the outbox stores for a storm summary: how many entries were folded, and where. */
const summarySchema = (z: Zod) =>
  z.object({
    level: z.enum(LEVELS),
    count: z.number(),
    /** Folded entries per pathname; at most MAX_SUMMARY_PATHS names, the rest under `null`. */
    pathnames: z.record(z.string(), z.number()),
    others: z.number(),
    windowStart: z.string(),
    windowEnd: z.string(),
  });
export type SummaryPayload = Readonly<z.infer<ReturnType<typeof summarySchema>>>;
/** The summary's schema, built by the first summary read back (docs/decisions.md §20.26). */
export const summaryPayload = schemaOnFirstUse(summarySchema);

/** A webhook's level (`fatal`) as the traffic level it names (`FATAL`). */
const TRAFFIC_LEVEL: Readonly<Record<WebhookLevel, Level>> = { fatal: 'FATAL', warning: 'WARNING', info: 'INFO' };

export type Message =
  | { readonly kind: 'traffic'; readonly entry: HttpTraffic }
  | { readonly kind: 'summary'; readonly summary: SummaryPayload }
  | { readonly kind: 'test'; readonly sentAt: string }
  | { readonly kind: 'alert'; readonly alert: AlertPayload };

export interface Target {
  readonly id: string;
  readonly type: Webhook['type'];
  readonly level: Webhook['level'];
  readonly trafficSourceId: string;
}

export const MAX_SUMMARY_PATHS = 20;

/** Discord's documented embed limits, counted in UTF-16 code units as discord.js counts them. */
export const DISCORD_LIMITS = {
  title: 256,
  description: 4096,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  total: 6000,
} as const;
/** Slack's limits for the blocks used here, counted the same (stricter) way. */
export const SLACK_LIMITS = { header: 150, field: 2000, section: 3000, text: 3000 } as const;

const COLOURS: Record<Level, number> = { FATAL: 0xe5484d, WARNING: 0xf5a623, INFO: 0x3b82f6 };
const EMOJI: Record<Level, string> = {
  FATAL: ':red_circle:',
  WARNING: ':large_orange_circle:',
  INFO: ':large_blue_circle:',
};

/** "37 more FATAL entries on /api/orders in the last minute", or a breakdown when paths differ. */
function summaryRich(s: SummaryPayload): Rich {
  const what = rich`${s.count} more ${s.level} ${s.count === 1 ? 'entry' : 'entries'}`;
  const paths = Object.entries(s.pathnames).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (paths.length === 1 && s.others === 0) return rich`${what} on ${paths[0]?.[0] ?? ''} in the last minute`;
  const parts = paths.map(([path, n]) => rich`${n} on ${path}`);
  if (s.others > 0) parts.push(rich`${s.others} elsewhere`);
  return rich`${what} in the last minute: ${joinRich(parts, ', ')}`;
}

export const summaryText = (s: SummaryPayload): string => plain(summaryRich(s));

const latency = (ms: number) => `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`;

/** What both chats show; every interpolated value is escaped when rendered (escape.ts). */
interface Card {
  readonly level: Level;
  readonly title: Rich;
  readonly description: Rich;
  readonly fields: readonly { readonly name: string; readonly value: Rich }[];
  readonly time: string;
}

function card(target: Target, message: Message): Card {
  switch (message.kind) {
    case 'traffic': {
      const e = message.entry;
      return {
        level: e.level,
        // \u00b7 is the middle dot (\u2192 an arrow), escaped: the daemon's bundle stays ASCII (decisions §20.3).
        title: rich`${e.level} \u00b7 ${e.method} ${e.pathname} \u2192 ${e.status}`,
        description: rich`${e.protocol.toLowerCase()}://${e.domain}${e.pathname} answered ${e.status}.`,
        fields: [
          { name: 'Latency', value: rich`${latency(e.elapsedTime)}` },
          { name: 'Domain', value: rich`${e.domain}` },
          { name: 'Time', value: rich`${e.createdAt}` },
        ],
        time: e.createdAt,
      };
    }
    case 'summary':
      return {
        level: message.summary.level,
        title: summaryRich(message.summary),
        description: rich`Tapline sends at most 5 messages per webhook per minute; these entries were folded into this one. See them with \`tapline traffic list\`.`,
        fields: [
          { name: 'Entries', value: rich`${message.summary.count}` },
          { name: 'From', value: rich`${message.summary.windowStart}` },
          { name: 'To', value: rich`${message.summary.windowEnd}` },
        ],
        time: message.summary.windowEnd,
      };
    case 'test':
      return {
        level: TRAFFIC_LEVEL[target.level],
        title: rich`Tapline test message`,
        description: rich`This webhook works: Tapline will post here for every new ${TRAFFIC_LEVEL[target.level]} entry of its traffic source.`,
        fields: [{ name: 'Time', value: rich`${message.sentAt}` }],
        time: message.sentAt,
      };
    case 'alert':
      return alertCard(message.alert);
  }
}

/** A Discord embed inside every limit Discord enforces; the description gives way first. */
export function discordBody(target: Target, message: Message): object {
  const c = card(target, message);
  const title = render(c.title, discordEscape, DISCORD_LIMITS.title);
  const fields = c.fields.map((f) => ({
    name: f.name,
    value: render(f.value, discordEscape, DISCORD_LIMITS.fieldValue),
    inline: true,
  }));
  const footer = { text: 'Tapline' };
  const fixed = title.length + footer.text.length + fields.reduce((n, f) => n + f.name.length + f.value.length, 0);
  const room = Math.max(1, Math.min(DISCORD_LIMITS.description, DISCORD_LIMITS.total - fixed));
  const embed = {
    title,
    description: render(c.description, discordEscape, room),
    color: COLOURS[c.level],
    fields,
    footer,
    timestamp: c.time,
  };
  return { username: 'Tapline', allowed_mentions: { parse: [] }, embeds: [embed] };
}

/** `verbatim` stops Slack from turning a value's bare URL or `#channel` into a link. */
const mrkdwn = (text: string) => ({ type: 'mrkdwn', text, verbatim: true });

/** Slack blocks with a fallback (`text`, which notifications parse like mrkdwn). */
export function slackBody(target: Target, message: Message): object {
  const c = card(target, message);
  return {
    text: render([`${EMOJI[c.level]} `, ...c.title], slackEscape, SLACK_LIMITS.text),
    blocks: [
      {
        type: 'header',
        text: { type: 'plain_text', text: render(c.title, slackEscape, SLACK_LIMITS.header), emoji: true },
      },
      { type: 'section', text: mrkdwn(render(c.description, slackEscape, SLACK_LIMITS.section)) },
      {
        type: 'section',
        fields: c.fields.map((f) => mrkdwn(render(rich`*${f.name}*\n${f.value}`, slackEscape, SLACK_LIMITS.field))),
      },
      { type: 'context', elements: [mrkdwn(`Tapline · ${c.level}`)] },
    ],
  };
}

/** docs/decisions.md §8.6: `{"event": "traffic", "webhookId", "trafficSourceId", "entry"}`; summaries, tests and alerts (docs/alerts.md) alike. */
export function httpBody(target: Target, message: Message): object {
  const envelope = { webhookId: target.id, trafficSourceId: target.trafficSourceId };
  switch (message.kind) {
    case 'traffic':
      return { event: 'traffic', ...envelope, entry: message.entry };
    case 'summary':
      return { event: 'summary', ...envelope, summary: { ...message.summary, text: summaryText(message.summary) } };
    case 'test':
      return { event: 'test', ...envelope, sentAt: message.sentAt };
    case 'alert':
      return { event: 'alert', ...envelope, alert: { ...message.alert, text: plain(alertCard(message.alert).title) } };
  }
}

/** The exact bytes to POST: the signature is computed over this string. */
export function renderBody(target: Target, message: Message): string {
  const build = { discord: discordBody, slack: slackBody, http: httpBody }[target.type];
  return JSON.stringify(build(target, message));
}

/** The `X-Tapline-Signature` of a body sent to an `http` webhook with a secret (docs/webhooks.md). */
export const signature = (secret: string, body: string) =>
  `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex')}`;

const testPayload = schemaOnFirstUse((z) => z.object({ sentAt: z.string() }));

/** A stored outbox row's payload as the message it carries, read with the contract's schemas. */
export async function messageOf(
  row: DeliveryRow,
  { HttpTraffic, AlertPayload }: Pick<Schemas, 'HttpTraffic' | 'AlertPayload'>,
): Promise<Message> {
  const payload: unknown = JSON.parse(row.payload);
  if (row.kind === 'traffic') return { kind: 'traffic', entry: HttpTraffic.parse(payload) };
  if (row.kind === 'summary') return { kind: 'summary', summary: (await summaryPayload()).parse(payload) };
  if (row.kind === 'alert') return { kind: 'alert', alert: AlertPayload.parse(payload) };
  return { kind: 'test', sentAt: (await testPayload()).parse(payload).sentAt };
}

/** A webhook's row as what rendering needs of it. */
export const targetOf = (w: WebhookRow): Target => ({
  id: w.id,
  type: w.type,
  level: w.level,
  trafficSourceId: w.traffic_source_id,
});

/** The headers of one attempt of a delivery, its signature among them for a signed `http` webhook. */
export function deliveryHeaders(row: DeliveryRow, webhook: WebhookRow, body: string, version: string) {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': `Tapline/${version} (+webhooks)`,
    'x-tapline-delivery': row.id,
    'x-tapline-attempt': String(row.attempts + 1),
  };
  if (webhook.type === 'http' && webhook.secret) headers['x-tapline-signature'] = signature(webhook.secret, body);
  return headers;
}
