import type { AlertPayload } from '@tapline/shared';
import { describe, expect, it } from 'vitest';
import { discordBody, httpBody, slackBody, type Target } from '../webhooks/format.js';

/** A route template comes from traffic: whoever calls the app chooses it. */
const ROUTE = '/api/<!channel>/[Reset](https://evil.example)/@everyone';

const payload = (over: Partial<AlertPayload> = {}): AlertPayload => ({
  ruleId: '019a4c2e-7b1d-7c3e-9f00-3a1b2c3d4e5f',
  rule: 'p95 > 800ms',
  state: 'firing',
  test: false,
  reminder: false,
  metric: 'p95',
  value: 912.4,
  threshold: 800,
  window: { since: '2026-11-21T09:55:00.000Z', until: '2026-11-21T10:00:30.000Z' },
  route: ROUTE,
  method: 'POST',
  since: '2026-11-21T10:00:30.000Z',
  at: '2026-11-21T10:00:30.000Z',
  requests: 134,
  baseline: null,
  command: `tapline stats 019a4c2e-0000-7000-8000-000000000000 --since 2026-11-21T09:55:00.000Z --until 2026-11-21T10:00:30.000Z --route '${ROUTE}'`,
  ...over,
});
const target = (type: Target['type']): Target => ({
  id: '019a4c2e-7b1d-7c3e-9f00-000000000001',
  type,
  level: 'fatal',
  trafficSourceId: '019a4c2e-7b1d-7c3e-9f00-000000000002',
});
const strings = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : value && typeof value === 'object' ? Object.values(value).flatMap(strings) : [];

describe('alert messages (issue 27)', () => {
  it('escapes the route for Discord and Slack as entry messages are, and says how long a resolved one fired', () => {
    const discord = strings(discordBody(target('discord'), { kind: 'alert', alert: payload() }));
    expect(
      discord.some((s) =>
        s.includes(
          'FIRING · p95 \\> 800ms on POST /api/\\<!channel\\>/\\[Reset\\]\\(https://evil.example\\)/@\u200beveryone',
        ),
      ),
    ).toBe(true);
    expect(discord.some((s) => /(?<!\\)\[Reset\]\(/.test(s) || s.includes('@everyone'))).toBe(false);
    const slack = strings(slackBody(target('slack'), { kind: 'alert', alert: payload() }));
    expect(slack.some((s) => s.includes('<!channel>'))).toBe(false);
    expect(slack.some((s) => s.includes('&lt;!channel&gt;'))).toBe(true);

    const resolved = slackBody(target('slack'), {
      kind: 'alert',
      alert: payload({ state: 'resolved', value: 120, since: '2026-11-21T09:48:00.000Z' }),
    });
    expect(strings(resolved).some((s) => s.includes('It fired for 12m'))).toBe(true);
  });

  it('sends the documented JSON for http: every field of the payload, as plain text', () => {
    const body = httpBody(target('http'), { kind: 'alert', alert: payload() });
    expect(body).toEqual({
      event: 'alert',
      webhookId: '019a4c2e-7b1d-7c3e-9f00-000000000001',
      trafficSourceId: '019a4c2e-7b1d-7c3e-9f00-000000000002',
      alert: { ...payload(), text: `FIRING · p95 > 800ms on POST ${ROUTE}` },
    });
  });
});
