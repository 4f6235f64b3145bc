import { afterEach, describe, expect, it } from 'vitest';
import { createSource, rawJson, type Harness, startHarness } from '@tapline/testkit/daemon';
import { checkWebhookTarget, classifyAddress } from './targets.js';

/** Link-local and cloud-metadata targets, in every spelling a URL parser accepts. */
const ALWAYS_REFUSED = [
  'http://169.254.169.254/latest/meta-data/',
  'http://169.254.0.1/',
  'http://169.254.169.254./',
  'http://2852039166/',
  'http://0xa9fea9fe/',
  'http://0251.0376.0251.0376/',
  'http://169.254.43518/',
  'http://[fe80::1]/',
  'http://[FE80::abcd:1]/',
  'http://[::ffff:169.254.169.254]/',
  'http://[::ffff:a9fe:a9fe]/',
  'http://[0:0:0:0:0:ffff:a9fe:a9fe]/',
  'http://[fd00:ec2::254]/',
  'http://[::a9fe:a9fe]/',
  'http://[::ffff:0:a9fe:a9fe]/',
  'http://[64:ff9b::a9fe:a9fe]/',
  'http://100.100.100.200/latest/meta-data/',
  'http://metadata.google.internal/computeMetadata/v1/',
  'http://METADATA.google.internal./',
  'http://metadata/',
  'http://instance-data/',
  'http://instance-data.ec2.internal/',
  'http://0.0.0.0/',
  'http://0/',
  'http://[::]/',
];

/** Loopback and private targets: refused unless --allow-private-webhooks. */
const PRIVATE = [
  'http://127.0.0.1:9000/hook',
  'http://127.1/',
  'http://2130706433/',
  'http://localhost:3000/hook',
  'http://LOCALHOST./',
  'http://app.localhost/',
  'http://10.1.2.3/',
  'http://172.16.0.1/',
  'http://172.31.255.255/',
  'http://192.168.1.10/',
  'http://100.64.0.1/',
  'http://[::1]/',
  'http://[0:0:0:0:0:0:0:1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]/',
  'http://[::ffff:10.0.0.1]/',
  'http://[fc00::1]/',
  'http://[fd12:3456::1]/',
];

const PUBLIC = [
  'https://receiver.example.com/hook',
  'http://8.8.8.8/',
  'http://172.32.0.1/',
  'http://[2606:4700::1111]/',
  'http://169.253.255.255/',
  'http://100.128.0.1/',
];

describe('checkWebhookTarget', () => {
  it.each(ALWAYS_REFUSED)('always refuses %s, even with private webhooks allowed', (url) => {
    for (const allowPrivate of [false, true]) {
      expect(checkWebhookTarget('http', url, allowPrivate)).toMatch(/link-local or cloud-metadata/);
    }
  });

  it.each(PRIVATE)('refuses %s unless private webhooks are allowed', (url) => {
    expect(checkWebhookTarget('http', url, false)).toMatch(/--allow-private-webhooks/);
    expect(checkWebhookTarget('http', url, true)).toBeNull();
  });

  it.each(PUBLIC)('accepts the public %s', (url) => {
    expect(checkWebhookTarget('http', url, false)).toBeNull();
  });

  it('keeps the per-type host and path rules for public hosts, and lets private ones stand in with the flag', () => {
    expect(checkWebhookTarget('discord', 'https://8.8.8.8/api/webhooks/1/abc', false)).toMatch(/discord webhook URL/);
    expect(checkWebhookTarget('discord', 'http://127.0.0.1:9/api/webhooks/1/abc', true)).toBeNull();
    expect(checkWebhookTarget('discord', 'http://127.0.0.1:9/not-a-webhook', true)).toMatch(/discord webhook URL/);
    expect(checkWebhookTarget('slack', 'http://169.254.169.254/services/T/B/X', true)).toMatch(/link-local/);
  });
});

describe('classifyAddress (also used on resolved addresses at delivery)', () => {
  it.each([
    ['169.254.169.254', 'blocked'],
    ['::ffff:169.254.169.254', 'blocked'],
    ['::ffff:a9fe:a9fe', 'blocked'],
    ['[fe80::1]', 'blocked'],
    ['0.0.0.0', 'blocked'],
    ['100.100.100.200', 'blocked'],
    ['127.0.0.1', 'private'],
    ['::1', 'private'],
    ['::ffff:192.168.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['8.8.8.8', 'public'],
    ['2001:4860:4860::8888', 'public'],
  ])('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });
});

describe('POST /webhooks/:trafficSourceId refuses these targets over HTTP', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function post(allowPrivateWebhooks: boolean, type: string, value: string) {
    h ??= await startHarness({ config: { allowPrivateWebhooks } });
    const user = await h.user();
    const source = await createSource(user.client);
    return rawJson(h, 'POST', `/webhooks/${source.id}`, user.token, { type, level: 'fatal', value });
  }

  it('link-local and metadata: 400 whatever the flag', async () => {
    for (const value of [
      'http://169.254.169.254/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://2852039166/',
      'http://metadata.google.internal/',
    ]) {
      for (const allow of [false, true]) {
        const answer = await post(allow, 'http', value);
        expect(answer.status, `${value} allow=${allow}`).toBe(400);
        expect((answer.json as { issues: { path: string }[] }).issues[0]?.path).toBe('value');
        await h?.close();
        h = undefined;
      }
    }
  });

  it('loopback: 400 by default, 201 with --allow-private-webhooks', async () => {
    expect((await post(false, 'http', 'http://127.0.0.1:8080/hook')).status).toBe(400);
    await h?.close();
    h = undefined;
    expect((await post(true, 'http', 'http://127.0.0.1:8080/hook')).status).toBe(201);
  });
});
