import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type SpawnedDaemon, startDaemon, tempHome } from './support/binaries.js';
import { launchChromium, seriousViolations, watchErrors } from './support/browser.js';
import { compose, createSource } from './support/compose.js';
import { userToken } from './support/web-ui.js';

/** The core logs, webhooks, alerts and sources views of the web UI, in Chromium against the built daemon. */
const home = tempHome('tapline-web-views-');
const XSS_TITLE = '<img src=x onerror="window.__xss=1">';

let daemon: SpawnedDaemon;
let browser: Browser;
let token: string;
let sourceId: string;
let entryId: string;
let logId: string;
let context: BrowserContext;
let page: Page;
let errors: string[];
/** A webhook receiver started by the test: every body it was sent. */
let receiver: Server;
const received: string[] = [];

const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
  const answer = await fetch(`${daemon.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(answer.ok, `${method} ${path}: ${answer.status}`).toBe(true);
  return (answer.status === 204 ? undefined : await answer.json()) as T;
};
const signedIn = (query: string) => `${daemon.url}/${query}#token=${encodeURIComponent(token)}`;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200).end('ok');
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  daemon = await startDaemon(home.path, ['--allow-private-webhooks']);
  token = await userToken(home.path, daemon.url, 'ana@example.com', 'correct horse battery');
  sourceId = await createSource(daemon.url, token, 'shop');
  ({ id: entryId } = await compose(daemon.url, token, sourceId, { pathnameUrl: '/orders/7', status: 500 }));
  await api('POST', `/core-log/${sourceId}`, { title: 'Cache warm-up skipped', layer: 'Application' });
  ({
    data: { id: logId },
  } = await api<{ data: { id: string } }>('POST', `/core-log/${sourceId}`, {
    title: XSS_TITLE,
    description: 'insert into orders failed',
    layer: 'Database',
    source: 'api-server',
    stack: 'Error: deadlock detected\n    at db.ts:42',
    httpTrafficId: entryId,
  }));
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
  receiver?.close();
  home.remove();
});

async function open(query: string): Promise<void> {
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  errors = watchErrors(page);
  await page.goto(signedIn(query));
}

afterEach(async () => {
  // Nothing recorded ran as markup, and no view threw or logged an error.
  expect(await page.evaluate('window.__xss')).toBeUndefined();
  expect(errors).toEqual([]);
  await context.close();
});

describe('the web UI views beyond traffic', { timeout: 60_000 }, () => {
  it('core logs: a record lists its linked log, which opens the logs view at it, and the log opens the record back', async () => {
    await open(`?view=record&source=${sourceId}&entry=${entryId}`);
    const linked = page.getByRole('region', { name: 'Core logs of this entry' });
    await linked.getByRole('button', { name: XSS_TITLE }).click();
    await page.waitForURL((url) => url.searchParams.get('view') === 'logs' && url.searchParams.get('log') === logId);
    const opened = page.locator(`#log-${logId}`);
    expect(await opened.getByRole('button', { expanded: true }).textContent()).toContain(
      `${XSS_TITLE}: insert into orders failed`,
    );
    expect(await opened.locator('.log-detail pre').last().textContent()).toBe(
      'Error: deadlock detected\n    at db.ts:42',
    );
    expect(await page.locator('.logs img').count()).toBe(0);
    expect(await page.locator('.log-title').allTextContents()).toEqual([
      `${XSS_TITLE}: insert into orders failed`,
      'Cache warm-up skipped',
    ]);
    expect(await seriousViolations(page)).toEqual([]);

    // A pasted link opens the same view; the log's entry opens the record, by keyboard.
    await page.reload();
    await opened.getByRole('button', { expanded: true }).waitFor();
    await opened.getByRole('button', { name: `Entry of ${XSS_TITLE}` }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('article', { name: 'Entry' }).waitFor();
    expect(new URL(page.url()).searchParams.get('entry')).toBe(entryId);
  });

  it('webhooks: one added by keyboard (a bad URL shown by field first), tested to a local receiver, its delivery shown, deleted after confirming', async () => {
    // Keyboard only: the terminal UI's `l` from the traffic list, then the header's button.
    await open(`?view=traffic&source=${sourceId}`);
    await page.getByRole('listbox').waitFor();
    await page.keyboard.press('l');
    await page.getByRole('region', { name: 'Core logs' }).waitFor();
    await page.getByRole('button', { name: 'Webhooks', exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.getByText('No webhook for this source yet.').waitFor();
    const url = page.getByLabel('URL');
    await url.fill('ftp://nowhere');
    await url.press('Enter');
    await page.locator('#webhook-value-error').waitFor();
    expect(await url.getAttribute('aria-invalid')).toBe('true');

    const target = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    await url.fill(target);
    await url.press('Enter');
    await page.getByRole('rowheader', { name: target }).waitFor();
    await page.getByText(/^Signing secret of the webhook to /).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: `Test ${target}` }).click();
    await page.getByText(`Test delivered to ${target} (HTTP 200).`).waitFor();
    expect(received.some((body) => body.includes('"test"'))).toBe(true);
    await page.getByRole('button', { name: `Deliveries of ${target}` }).click();
    const deliveries = page.getByRole('table', { name: 'The newest 100 attempts' });
    await deliveries.waitFor();
    const cells = await deliveries.locator('tbody tr').first().locator('td').allTextContents();
    expect(cells.slice(1, 5)).toEqual(['test', 'delivered', '200', '1']);
    expect(new URL(page.url()).searchParams.get('webhook')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: `Delete the webhook to ${target}` }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByText('No webhook for this source yet.').waitFor();
    expect((await api<{ data: unknown[] }>('GET', `/webhooks/${sourceId}`)).data).toEqual([]);
  });

  it('alerts: a rule refused with the condition error, then added, tested and removed', async () => {
    const hook = await api<{ id: string }>('POST', `/webhooks/${sourceId}`, {
      type: 'http',
      level: 'fatal',
      value: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/alerts`,
    });
    await open(`?view=alerts&source=${sourceId}`);
    await page.getByText('No alert rule for this source yet.').waitFor();
    await page.getByLabel('When').fill('p96 > 1s');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.locator('#alert-when-error').waitFor();
    expect(await page.locator('#alert-when-error').textContent()).toMatch(/column 1\)/);

    await page.getByLabel('When').fill('p95 > 800ms');
    await page.getByLabel('Route').fill('/orders/{id}');
    await page.getByRole('checkbox', { name: /\/alerts$/ }).check();
    await page.getByRole('button', { name: 'Add rule' }).click();
    const row = page.getByRole('row', { name: /p95 > 800ms/ });
    await row.waitFor();
    expect(await row.locator('.level').textContent()).toBe('ok');
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Test p95 > 800ms' }).click();
    await page.getByText('p95 > 800ms: a sample firing message queued for 1 webhook (see their deliveries).').waitFor();
    await page.getByRole('button', { name: 'Remove the rule p95 > 800ms on /orders/{id}' }).click();
    await page.getByRole('button', { name: 'Yes, remove' }).click();
    await page.getByText('No alert rule for this source yet.').waitFor();
    expect((await api<{ data: unknown[] }>('GET', `/alerts/${sourceId}`)).data).toEqual([]);
    await api('DELETE', `/webhooks/${hook.id}`);
  });

  it('sources: one added from the header becomes the source shown', async () => {
    await open(`?view=traffic&source=${sourceId}`);
    await page.getByRole('listbox').waitFor();
    await page.getByRole('button', { name: 'Add source' }).click();
    const form = page.getByRole('form', { name: 'Add a source' });
    await form.getByLabel('Name').fill('billing');
    await form.getByLabel('Domain').fill('https://billing.example.com/');
    await form.getByRole('button', { name: 'Add source' }).click();
    await form.locator('#source-domain-error').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await form.getByLabel('Domain').fill('billing.example.com');
    await form.getByRole('button', { name: 'Add source' }).click();
    await form.waitFor({ state: 'detached' });
    const sources = await api<{ data: { id: string; name: string }[] }>('GET', '/traffic-source');
    const billing = sources.data.find((s) => s.name === 'billing');
    await page.waitForURL((url) => url.searchParams.get('source') === billing?.id);
    expect(await page.locator('.source-picker select').inputValue()).toBe(billing?.id);
  });
});
