import { contract } from '@tapline/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { manualClock, type Receiver, startReceiver, startWebhookApp, type WebhookApp } from '@tapline/testkit/daemon';

/** Anyone who can make the monitored app answer 4xx/5xx chooses these paths. */
const SLACK_PING = '/api/<!channel>';
const SLACK_LINK = '/<https://evil.example|Reset your password>';
const DISCORD_LINK = '/[Reset your password](https://evil.example)';

interface DiscordBody {
  allowed_mentions: { parse: string[] };
  embeds: { title: string; description: string; fields: { name: string; value: string }[]; footer: { text: string } }[];
}
type Block = {
  type: string;
  text?: { type: string; text: string; verbatim?: boolean };
  fields?: { text: string; verbatim?: boolean }[];
  elements?: { text: string }[];
};
interface SlackBody {
  text: string;
  blocks: Block[];
}

/** Every string of a payload: what the chat may render, wherever it sits. */
const strings = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : value && typeof value === 'object' ? Object.values(value).flatMap(strings) : [];

/** Half of a surrogate pair without its other half: what a cut in the middle of an emoji leaves. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('chat payloads escape what visitors of the monitored app control', () => {
  const clock = manualClock();
  let app: WebhookApp;
  let receiver: Receiver;
  let sourceId: string;

  beforeEach(async () => {
    clock.set('2026-11-21T10:00:00.000Z');
    app = await startWebhookApp({ clock });
    sourceId = await app.source();
  });
  afterEach(async () => {
    await app.close();
    await receiver.close();
  });

  async function deliver(type: 'slack' | 'discord', ...paths: string[]) {
    receiver = await startReceiver(type === 'slack' ? '/services/T000/B000/XXXX' : '/api/webhooks/123456/tok-en_1');
    await app.client.call(contract.createWebhook, {
      params: { trafficSourceId: sourceId },
      body: { type, level: 'fatal', value: receiver.url },
    });
    for (const pathnameUrl of paths) await app.compose(sourceId, { status: 503, pathnameUrl });
    await app.worker.runDue();
  }

  it('Slack: a path cannot ping the channel or show a disguised link, in any text of the message', async () => {
    await deliver('slack', SLACK_PING, SLACK_LINK);
    const [ping, link] = receiver.requests.map((r) => r.json<SlackBody>());
    for (const body of [ping!, link!]) {
      for (const text of strings(body)) expect(text).not.toMatch(/<[!@#h]/);
      const mrkdwn = body.blocks
        .flatMap((b) => [b.text, ...(b.fields ?? []), ...(b.elements ?? [])])
        .filter((t) => t && 'type' in t && t.type === 'mrkdwn');
      expect(mrkdwn.length).toBeGreaterThan(0);
      for (const t of mrkdwn) expect(t).toMatchObject({ verbatim: true });
    }
    expect(ping!.text).toBe(':red_circle: FATAL · GET /api/&lt;!channel&gt; → 503');
    expect(ping!.blocks[0]!.text).toEqual({
      type: 'plain_text',
      text: 'FATAL · GET /api/&lt;!channel&gt; → 503',
      emoji: true,
    });
    expect(link!.blocks[1]!.text!.text).toBe(
      'https://shop.example.com/&lt;https://evil.example|Reset your password&gt; answered 503.',
    );
  });

  it('Slack: a storm summary cannot carry <!here>', async () => {
    await deliver('slack', ...Array.from({ length: 7 }, (_, i) => (i < 5 ? '/api/orders' : '/<!here>')));
    clock.set('2026-11-21T10:01:00.000Z');
    await app.worker.runDue();
    const summary = receiver.requests[5]!.json<SlackBody>();
    expect(summary.text).toBe(':red_circle: 2 more FATAL entries on /&lt;!here&gt; in the last minute');
    for (const text of strings(summary)) expect(text).not.toContain('<!here>');
  });

  it('Discord: a path cannot form a masked link, a mention or a heading, and mentions stay off', async () => {
    await deliver(
      'discord',
      DISCORD_LINK,
      '/@everyone/<@123456>/<#42>',
      '/x\n# Urgent\n> quote ||spoiler|| *b* _i_ ~s~ `c`',
    );
    const [link, mention, markup] = receiver.requests.map((r) => r.json<DiscordBody>());
    for (const body of [link!, mention!, markup!]) {
      expect(body.allowed_mentions).toEqual({ parse: [] });
      // Outside a backslash escape no Markdown or mention syntax is left in what the path put there.
      for (const text of strings(body.embeds)) {
        expect(text.replace(/\\[^]/g, '')).not.toMatch(/[[\]()<>*_~`|#]|@everyone|@here|\n#/);
      }
    }
    expect(link!.embeds[0]!.title).toBe('FATAL · GET /\\[Reset your password\\]\\(https://evil.example\\) → 503');
    expect(mention!.embeds[0]!.title).toBe('FATAL · GET /@\u200beveryone/\\<@\u200b123456\\>/\\<\\#42\\> → 503');
    expect(markup!.embeds[0]!.title).toContain(
      '/x␊\\# Urgent␊\\> quote \\|\\|spoiler\\|\\| \\*b\\* \\_i\\_ \\~s\\~ \\`c\\`',
    );
  });

  it('Discord: a path of emoji at the limit fits in UTF-16 units (as discord.js counts) and splits no pair', async () => {
    await deliver('discord', `/${'😀'.repeat(3000)}`);
    const embed = receiver.requests[0]!.json<DiscordBody>().embeds[0]!;
    expect(embed.title.length).toBeLessThanOrEqual(256);
    expect(embed.title.length).toBeGreaterThan(250);
    expect(embed.description.length).toBeLessThanOrEqual(4096);
    const total = [
      embed.title,
      embed.description,
      embed.footer.text,
      ...embed.fields.flatMap((f) => [f.name, f.value]),
    ].join('').length;
    expect(total).toBeLessThanOrEqual(6000);
    for (const text of strings(embed)) expect(text).not.toMatch(LONE_SURROGATE);
    expect(embed.title.endsWith('😀…')).toBe(true);
  });
});
