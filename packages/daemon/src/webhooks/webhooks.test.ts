import { contract } from '@tapline/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createSource,
  expectError,
  manualClock,
  MISSING_ID,
  raw,
  rawJson,
  type Harness,
  startHarness,
} from '@tapline/testkit/daemon';

const DISCORD = 'https://discord.com/api/webhooks/123456/abc-DEF_ghi';
const SLACK = 'https://hooks.slack.com/services/T000/B000/XXXX';
const HTTP = 'https://receiver.example.com/tapline';

describe('webhooks', () => {
  let h: Harness;
  const clock = manualClock('2026-08-08T08:08:08.008Z');
  beforeEach(async () => {
    clock.set('2026-08-08T08:08:08.008Z');
    h = await startHarness({ clock });
  });
  afterEach(() => h.close());

  async function owner() {
    const user = await h.user();
    const source = await createSource(user.client);
    const post = (body: unknown) => rawJson(h, 'POST', `/webhooks/${source.id}`, user.token, body);
    return { ...user, source, post };
  }

  it('POST creates discord, slack and http webhooks (201) with the Webhook fields', async () => {
    const { source, post } = await owner();
    for (const [type, value, level] of [
      ['discord', DISCORD, 'fatal'],
      ['slack', SLACK, 'warning'],
      ['http', HTTP, 'info'],
    ] as const) {
      const answer = await post({ type, level, value });
      expect(answer.status, answer.text).toBe(201);
      const body = answer.json as Record<string, unknown>;
      expect(body).toMatchObject({
        // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- vitest's asymmetric matchers are typed `any`
        id: expect.any(String),
        type,
        level,
        value,
        trafficSourceId: source.id,
        createdAt: '2026-08-08T08:08:08.008Z',
        updatedAt: '2026-08-08T08:08:08.008Z',
      });
      const keys = ['createdAt', 'id', 'level', 'trafficSourceId', 'type', 'updatedAt', 'value'];
      expect(Object.keys(body).sort()).toEqual(type === 'http' ? [...keys, 'secret'].sort() : keys);
    }
  });

  it('an http webhook shows its 64-hex secret in the 201 only, never in lists', async () => {
    const { client, source, post, token } = await owner();
    const a = (await post({ type: 'http', level: 'fatal', value: HTTP })).json as { secret: string };
    const b = (await post({ type: 'http', level: 'warning', value: HTTP })).json as { secret: string };
    expect(a.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(b.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(a.secret).not.toBe(b.secret);
    const listed = await raw(h, 'GET', `/webhooks/${source.id}`, { token });
    expect(listed.text).not.toContain(a.secret);
    expect(listed.text).not.toContain('secret');
    const typed = await client.call(contract.listWebhooks, { params: { trafficSourceId: source.id } });
    expect(typed.data).toHaveLength(2);
  });

  it('GET lists the source’s webhooks newest first with meta', async () => {
    const { client, source, token } = await owner();
    const first = await client.call(contract.createWebhook, {
      params: { trafficSourceId: source.id },
      body: { type: 'discord', level: 'fatal', value: DISCORD },
    });
    clock.advance(10);
    const second = await client.call(contract.createWebhook, {
      params: { trafficSourceId: source.id },
      body: { type: 'slack', level: 'warning', value: SLACK },
    });
    const other = await createSource(client, 'other');
    await client.call(contract.createWebhook, {
      params: { trafficSourceId: other.id },
      body: { type: 'discord', level: 'fatal', value: DISCORD },
    });
    const answer = await raw(h, 'GET', `/webhooks/${source.id}`, { token });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ data: [second, first], meta: { total: 2, page: 1, limit: 10 } });
  });

  it('GET documents 400, 401, 404', async () => {
    const { token } = await owner();
    expect((await raw(h, 'GET', '/webhooks/nope', { token })).json).toMatchObject({
      statusCode: 400,
      error: 'trafficSourceId must be a valid UUID',
      code: 'validation_failed',
    });
    expect((await raw(h, 'GET', `/webhooks/${MISSING_ID}`, { token })).json).toEqual({
      statusCode: 404,
      error: 'Traffic Source not found',
      code: 'source_not_found',
    });
    expect((await raw(h, 'GET', `/webhooks/${MISSING_ID}`, { token: 'bad' })).status).toBe(401);
    expect((await raw(h, 'GET', `/webhooks/${MISSING_ID}`)).status).toBe(400);
  });

  it('POST answers 409 to the same type, level and value twice', async () => {
    const { post, client } = await owner();
    expect((await post({ type: 'discord', level: 'fatal', value: DISCORD })).status).toBe(201);
    const again = await post({ type: 'discord', level: 'fatal', value: DISCORD });
    expect(again.status).toBe(409);
    expect((again.json as { statusCode: number }).statusCode).toBe(409);
    expect((await post({ type: 'discord', level: 'warning', value: DISCORD })).status).toBe(201);
    const otherSource = await createSource(client, 'elsewhere');
    const elsewhere = await rawJson(
      h,
      'POST',
      `/webhooks/${otherSource.id}`,
      (await h.deps.tokens.issue({ userId: otherSource.userId, scope: 'full' })).token,
      { type: 'discord', level: 'fatal', value: DISCORD },
    );
    expect(elsewhere.status).toBe(201);
  });

  it('POST validates type, level and value', async () => {
    const { post } = await owner();
    const bad: Array<[unknown, string]> = [
      [{ level: 'fatal', value: DISCORD }, 'type'],
      [{ type: 'teams', level: 'fatal', value: DISCORD }, 'type'],
      [{ type: 'Discord', level: 'fatal', value: DISCORD }, 'type'],
      [{ type: 'discord', value: DISCORD }, 'level'],
      [{ type: 'discord', level: 'FATAL', value: DISCORD }, 'level'],
      [{ type: 'discord', level: 'error', value: DISCORD }, 'level'],
      [{ type: 'discord', level: 'fatal' }, 'value'],
      [{ type: 'discord', level: 'fatal', value: '' }, 'value'],
      [{ type: 'http', level: 'fatal', value: `https://example.com/${'x'.repeat(2048)}` }, 'value'],
    ];
    for (const [body, path] of bad) {
      const answer = await post(body);
      expect(answer.status, JSON.stringify(body).slice(0, 100)).toBe(400);
      expect((answer.json as { issues: { path: string }[] }).issues.map((i) => i.path)).toContain(path);
    }
    const missing = await rawJson(h, 'POST', `/webhooks/${MISSING_ID}`, (await h.user()).token, {
      type: 'discord',
      level: 'fatal',
      value: DISCORD,
    });
    expect(missing.json).toEqual({ statusCode: 404, error: 'Traffic Source not found', code: 'source_not_found' });
  });

  it('POST checks the URL per type', async () => {
    const { post } = await owner();
    const refused: Array<[string, string]> = [
      ['discord', 'not a url'],
      ['discord', 'https://example.com/api/webhooks/1/abc'],
      ['discord', 'https://discord.com.evil.com/api/webhooks/1/abc'],
      ['discord', 'http://discord.com/api/webhooks/1/abc'],
      ['discord', 'https://discord.com/channels/1/2'],
      ['discord', SLACK],
      ['slack', DISCORD],
      ['slack', 'https://hooks.slack.com/other/T/B/X'],
      ['slack', 'http://hooks.slack.com/services/T/B/X'],
      ['http', 'ftp://receiver.example.com/x'],
      ['http', 'receiver.example.com/x'],
      ['http', 'https://user:pass@receiver.example.com/x'],
      ['http', 'file:///etc/passwd'],
    ];
    for (const [type, value] of refused) {
      const answer = await post({ type, level: 'fatal', value });
      expect(answer.status, `${type} ${value}`).toBe(400);
      expect((answer.json as { issues: { path: string }[] }).issues.map((i) => i.path)).toEqual(['value']);
    }
    const accepted: Array<[string, string]> = [
      ['discord', 'https://discordapp.com/api/webhooks/1/abc'],
      ['discord', 'https://discord.com/api/v10/webhooks/1/abc'],
      ['discord', 'https://canary.discord.com/api/webhooks/1/abc'],
      ['slack', 'https://hooks.slack.com/workflows/T/A/B'],
      ['http', 'http://receiver.example.com:8080/x?y=1'],
    ];
    for (const [type, value] of accepted)
      expect((await post({ type, level: 'fatal', value })).status, `${type} ${value}`).toBe(201);
  });

  it('DELETE answers 204 with an empty body; the webhook is gone; a second DELETE is 404 Webhook not found', async () => {
    const { client, source, token } = await owner();
    const webhook = await client.call(contract.createWebhook, {
      params: { trafficSourceId: source.id },
      body: { type: 'discord', level: 'fatal', value: DISCORD },
    });
    const deleted = await raw(h, 'DELETE', `/webhooks/${webhook.id}`, { token });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await client.call(contract.listWebhooks, { params: { trafficSourceId: source.id } })).data).toEqual([]);
    const again = await raw(h, 'DELETE', `/webhooks/${webhook.id}`, { token });
    expect(again.status).toBe(404);
    expect(again.json).toEqual({ statusCode: 404, error: 'Webhook not found', code: 'webhook_not_found' });
  });

  it('DELETE documents 400 for a bad id and for a missing token, 401 for a bad token', async () => {
    const { token } = await owner();
    const bad = await raw(h, 'DELETE', '/webhooks/nope', { token });
    expect(bad.status).toBe(400);
    expect((bad.json as { error: string }).error).toBe('webhookId must be a valid UUID');
    expect((await raw(h, 'DELETE', `/webhooks/${MISSING_ID}`)).json).toEqual({
      statusCode: 400,
      error: 'Authentication token missing',
      code: 'token_missing',
    });
    expect((await raw(h, 'DELETE', `/webhooks/${MISSING_ID}`, { token: 'a.b.c' })).json).toEqual({
      statusCode: 401,
      error: 'Invalid token',
      code: 'token_invalid',
    });
  });

  it('DELETE by another user is 403 and leaves the webhook in place', async () => {
    const { client, source } = await owner();
    const stranger = await h.user();
    const webhook = await client.call(contract.createWebhook, {
      params: { trafficSourceId: source.id },
      body: { type: 'discord', level: 'fatal', value: DISCORD },
    });
    await expectError(
      stranger.client.call(contract.deleteWebhook, { params: { webhookId: webhook.id } }),
      403,
      'Forbidden',
    );
    expect((await client.call(contract.listWebhooks, { params: { trafficSourceId: source.id } })).data).toEqual([
      webhook,
    ]);
  });
});
