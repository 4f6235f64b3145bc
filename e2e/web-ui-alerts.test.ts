import type { AlertRule } from '@tapline/shared';
import { until } from '@tapline/testkit';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SpawnedDaemon, startDaemon, tempHome } from './support/binaries.js';
import { launchChromium, seriousViolations, watchErrors } from './support/browser.js';
import { compose, createSource } from './support/compose.js';
import { userToken } from './support/web-ui.js';

const home = tempHome('tapline-web-alerts-');
let daemon: SpawnedDaemon;
let browser: Browser;
let token: string;
let sourceId: string;

const api = async (method: string, path: string, body?: unknown) => {
  const answer = await fetch(`${daemon.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(answer.ok, `${method} ${path}: ${answer.status}`).toBe(true);
  return answer.json();
};
const rules = async () => ((await api('GET', `/alerts/${sourceId}`)) as { data: AlertRule[] }).data;

beforeAll(async () => {
  daemon = await startDaemon(home.path, ['--allow-private-webhooks', '--alert-interval', '1s']);
  token = await userToken(home.path, daemon.url, 'ana@example.com', 'correct horse battery');
  sourceId = await createSource(daemon.url, token, 'shop');
  // Nothing listens at the webhook: it only gives the rules a target.
  const hook = (await api('POST', `/webhooks/${sourceId}`, {
    type: 'http',
    level: 'fatal',
    value: 'http://127.0.0.1:9/hook',
  })) as { id: string };
  await api('POST', `/alerts/${sourceId}`, {
    when: 'requests > 0/min',
    route: '/checkout',
    window: '1m',
    webhookIds: [hook.id],
  });
  await api('POST', `/alerts/${sourceId}`, {
    when: 'p95 > 10s',
    route: '/checkout',
    window: '1m',
    minRequests: 0,
    webhookIds: [hook.id],
  });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
  home.remove();
});

describe('the web UI shows the firing alert rules', { timeout: 90_000 }, () => {
  it('no banner while none fires; a banner listing the firing rule once one does, and only that one', async () => {
    const context: BrowserContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page: Page = await context.newPage();
    const errors = watchErrors(page);
    const banner = page.getByRole('region', { name: 'Alerts firing' });

    await page.goto(`${daemon.url}/#token=${encodeURIComponent(token)}`);
    await page.getByRole('listbox').waitFor();
    await until(async () => (await rules()).every((r) => r.evaluatedAt !== null), 'a first evaluation', 10_000);
    await page.reload();
    await page.getByRole('listbox').waitFor();
    expect(await banner.count()).toBe(0);

    await compose(daemon.url, token, sourceId, { pathnameUrl: '/checkout', elapsedTime: 40 });
    await until(async () => (await rules()).some((r) => r.state === 'firing'), 'the rule firing', 15_000);
    // Without a reload: the banner asks again by itself.
    await banner.waitFor({ timeout: 15_000 });
    expect(await banner.getByRole('heading').textContent()).toBe('1 alert rule firing');
    const items = await banner.getByRole('listitem').allTextContents();
    expect(items).toHaveLength(1);
    expect(items[0]).toMatch(
      /^\/checkout requests > 0\/min since \d{4}-\d\d-\d\d [\d:.]+ \(\d+s\),\s*value [\d.]+\/min over 1 request$/,
    );
    expect(await page.getByRole('listbox').count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
