import type { HttpTraffic, Level, Webhook } from '@tapline/shared';

/** What the outbox stores for a storm summary: how many entries were folded, and where. */
export interface SummaryPayload {
  readonly level: Level;
  readonly count: number;
  /** Folded entries per pathname; at most MAX_SUMMARY_PATHS names, the rest under `null`. */
  readonly pathnames: Readonly<Record<string, number>>;
  readonly others: number;
  readonly windowStart: string;
  readonly windowEnd: string;
}

export type Message =
  | { readonly kind: 'traffic'; readonly entry: HttpTraffic }
  | { readonly kind: 'summary'; readonly summary: SummaryPayload }
  | { readonly kind: 'test'; readonly sentAt: string };

export interface Target {
  readonly id: string;
  readonly type: Webhook['type'];
  readonly level: Webhook['level'];
  readonly trafficSourceId: string;
}

export const MAX_SUMMARY_PATHS = 20;

/** Discord's documented embed limits, in characters. */
export const DISCORD_LIMITS = { title: 256, description: 4096, fieldName: 256, fieldValue: 1024, footer: 2048, total: 6000 } as const;
/** Slack's limits for the blocks used here. */
export const SLACK_LIMITS = { header: 150, field: 2000, section: 3000, text: 3000 } as const;

const COLOURS: Record<Level, number> = { FATAL: 0xe5484d, WARNING: 0xf5a623, INFO: 0x3b82f6 };
const EMOJI: Record<Level, string> = { FATAL: ':red_circle:', WARNING: ':large_orange_circle:', INFO: ':large_blue_circle:' };

/** Cuts `text` to `max` characters (code points), marking the cut with an ellipsis. */
export function clip(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

const length = (text: string) => Array.from(text).length;

/** "37 more FATAL entries on /api/orders in the last minute", or a breakdown when paths differ. */
export function summaryText(s: SummaryPayload): string {
  const what = `${s.count} more ${s.level} ${s.count === 1 ? 'entry' : 'entries'}`;
  const paths = Object.entries(s.pathnames).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (paths.length === 1 && s.others === 0) return `${what} on ${paths[0]?.[0]} in the last minute`;
  const parts = paths.map(([path, n]) => `${n} on ${path}`);
  if (s.others > 0) parts.push(`${s.others} elsewhere`);
  return `${what} in the last minute: ${parts.join(', ')}`;
}

/** `FATAL · POST /api/orders → 503` */
export const entryTitle = (e: HttpTraffic) => `${e.level} · ${e.method} ${e.pathname} → ${e.status}`;

const latency = (ms: number) => `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`;

interface Card {
  readonly level: Level;
  readonly title: string;
  readonly description: string;
  readonly fields: readonly { readonly name: string; readonly value: string }[];
  readonly time: string;
}

function card(target: Target, message: Message): Card {
  switch (message.kind) {
    case 'traffic': {
      const e = message.entry;
      return {
        level: e.level,
        title: entryTitle(e),
        description: `${e.protocol.toLowerCase()}://${e.domain}${e.pathname} answered ${e.status}.`,
        fields: [
          { name: 'Latency', value: latency(e.elapsedTime) },
          { name: 'Domain', value: e.domain },
          { name: 'Time', value: e.createdAt },
        ],
        time: e.createdAt,
      };
    }
    case 'summary':
      return {
        level: message.summary.level,
        title: summaryText(message.summary),
        description: `Tapline sends at most 5 messages per webhook per minute; these entries were folded into this one. See them with \`tapline traffic list\`.`,
        fields: [
          { name: 'Entries', value: String(message.summary.count) },
          { name: 'From', value: message.summary.windowStart },
          { name: 'To', value: message.summary.windowEnd },
        ],
        time: message.summary.windowEnd,
      };
    case 'test':
      return {
        level: target.level.toUpperCase() as Level,
        title: 'Tapline test message',
        description: `This webhook works: Tapline will post here for every new ${target.level.toUpperCase()} entry of its traffic source.`,
        fields: [{ name: 'Time', value: message.sentAt }],
        time: message.sentAt,
      };
  }
}

/** A Discord embed inside every limit Discord enforces; the description gives way first. */
export function discordBody(target: Target, message: Message): object {
  const c = card(target, message);
  const title = clip(c.title, DISCORD_LIMITS.title);
  const fields = c.fields.map((f) => ({ name: clip(f.name, DISCORD_LIMITS.fieldName), value: clip(f.value, DISCORD_LIMITS.fieldValue), inline: true }));
  const footer = { text: 'Tapline' };
  const fixed = length(title) + length(footer.text) + fields.reduce((n, f) => n + length(f.name) + length(f.value), 0);
  const room = Math.max(1, Math.min(DISCORD_LIMITS.description, DISCORD_LIMITS.total - fixed));
  const embed = { title, description: clip(c.description, room), color: COLOURS[c.level], fields, footer, timestamp: c.time };
  return { username: 'Tapline', allowed_mentions: { parse: [] }, embeds: [embed] };
}

/** Slack blocks with a plain-text fallback (`text`) for notifications. */
export function slackBody(target: Target, message: Message): object {
  const c = card(target, message);
  const title = `${EMOJI[c.level]} ${c.title}`;
  return {
    text: clip(title, SLACK_LIMITS.text),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: clip(c.title, SLACK_LIMITS.header), emoji: true } },
      { type: 'section', text: { type: 'mrkdwn', text: clip(c.description, SLACK_LIMITS.section) } },
      { type: 'section', fields: c.fields.map((f) => ({ type: 'mrkdwn', text: clip(`*${f.name}*\n${f.value}`, SLACK_LIMITS.field) })) },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `Tapline · ${c.level}` }] },
    ],
  };
}

/** docs/decisions.md §8.6: `{"event": "traffic", "webhookId", "trafficSourceId", "entry"}`; summaries and tests alike. */
export function httpBody(target: Target, message: Message): object {
  const envelope = { webhookId: target.id, trafficSourceId: target.trafficSourceId };
  switch (message.kind) {
    case 'traffic':
      return { event: 'traffic', ...envelope, entry: message.entry };
    case 'summary':
      return { event: 'summary', ...envelope, summary: { ...message.summary, text: summaryText(message.summary) } };
    case 'test':
      return { event: 'test', ...envelope, sentAt: message.sentAt };
  }
}

/** The exact bytes to POST: the signature is computed over this string. */
export function renderBody(target: Target, message: Message): string {
  const build = { discord: discordBody, slack: slackBody, http: httpBody }[target.type];
  return JSON.stringify(build(target, message));
}
