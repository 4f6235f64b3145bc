import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type SpawnedDaemon, startDaemon, tempHome } from './support/binaries.js';
import { launchChromium, seriousViolations, watchErrors } from './support/browser.js';
import { compose, createSource } from './support/compose.js';
import { userToken } from './support/web-ui.js';

/**
 * Replay from the record view, in Chromium against the built daemon (issue 29): the browser
 * itself sends the edited request to an app on loopback, and says why when it cannot.
 */
const home = tempHome('tapline-web-replay-');

let daemon: SpawnedDaemon;
let browser: Browser;
let token: string;
let sourceId: string;
let entryId: string;
let context: BrowserContext;
let page: Page;
let errors: string[];
const servers: Server[] = [];
/** Every request the apps below were sent: method, path and headers. */
const seen: { method?: string; url?: string; headers: IncomingHttpHeaders }[] = [];

/** An app answering CORS, preflight included, that echoes `x-tenant` in its body and in an exposed header. */
const corsApp: RequestListener = (req, res) => {
  seen.push({ method: req.method, url: req.url, headers: req.headers });
  const cors = { 'access-control-allow-origin': req.headers.origin ?? '*', vary: 'Origin' };
  if (req.method === 'OPTIONS') {
    res.writeHead(204, {
      ...cors,
      'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE',
      'access-control-allow-headers': req.headers['access-control-request-headers'] ?? '',
    });
    res.end();
    return;
  }
  req.resume();
  req.on('end', () => {
    const tenant = String(req.headers['x-tenant'] ?? '');
    res.writeHead(200, {
      ...cors,
      'content-type': 'application/json',
      'x-echo-tenant': tenant,
      'access-control-expose-headers': 'x-echo-tenant',
    });
    res.end(JSON.stringify({ tenant }));
  });
};
/** The same app without a word of CORS. */
const plainApp: RequestListener = (req, res) => {
  seen.push({ method: req.method, url: req.url, headers: req.headers });
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"tenant":"?"}');
};

async function listen(app: RequestListener, host: string): Promise<string> {
  const server = createServer(app);
  servers.push(server);
  server.listen(0, host);
  await once(server, 'listening');
  return `http://${host}:${(server.address() as AddressInfo).port}`;
}

let corsOrigin: string;
let plainOrigin: string;
/** Not loopback to the policy (a name, allowed by `--ui-replay-origin`), though it reaches this machine. */
let listedOrigin: string;

beforeAll(async () => {
  corsOrigin = await listen(corsApp, '127.0.0.1');
  plainOrigin = await listen(plainApp, '127.0.0.1');
  listedOrigin = await listen(corsApp, '127.0.0.2');
  daemon = await startDaemon(home.path, ['--ui-replay-origin', listedOrigin]);
  token = await userToken(home.path, daemon.url, 'ana@example.com', 'correct horse battery');
  sourceId = await createSource(daemon.url, token, 'shop');
  ({ id: entryId } = await compose(daemon.url, token, sourceId, {
    domainUrl: corsOrigin,
    protocol: 'HTTP',
    method: 'POST',
    pathnameUrl: '/orders',
    requestHeaders: { accept: 'application/json', 'x-tenant': 'acme', cookie: 'theme=dark' },
    requestBody: { sku: 'A-1' },
    responseHeaders: { 'content-type': 'application/json', 'x-echo-tenant': 'acme' },
    responseBody: { tenant: 'acme' },
  }));
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
  for (const server of servers) server.close();
  home.remove();
});

/** Opens the entry, signed in through the fragment as `tapline open` does, and its replay panel. */
async function openReplay(): Promise<void> {
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  errors = watchErrors(page);
  await page.goto(`${daemon.url}/?view=record&source=${sourceId}&entry=${entryId}#token=${encodeURIComponent(token)}`);
  await page.getByRole('button', { name: 'Replay…' }).click();
  await page.getByRole('region', { name: 'Replay', exact: true }).waitFor();
}

const panel = () => page.getByRole('region', { name: 'Replay', exact: true });

/** The value box of the header row holding `value`. */
async function headerValue(value: string) {
  const boxes = panel().getByRole('textbox', { name: /^Header \d+ value$/ });
  for (const box of await boxes.all()) if ((await box.inputValue()) === value) return box;
  throw new Error(`no header holds "${value}"`);
}

async function replayTo(origin: string, editTenant = true): Promise<void> {
  await panel().getByRole('textbox', { name: 'URL' }).fill(`${origin}/orders`);
  if (editTenant) await (await headerValue('acme')).fill('globex');
  await panel().getByRole('button', { name: 'Send' }).click();
}

/** The browser's own console lines for a refused connection: expected where a test provokes one. */
const browserRefusals = (lines: string[]) =>
  lines.filter(
    (l) => !/violates the following Content Security Policy|because it violates|blocked by CORS policy/.test(l),
  );

afterEach(async () => {
  // No uncaught error and no error of the page's own.
  expect(browserRefusals(errors)).toEqual([]);
  await context.close();
});

describe('replay from the web UI', { timeout: 60_000 }, () => {
  it('sends the edited request from the browser, shows the answer beside the recorded one, and the diff', async () => {
    await openReplay();
    expect(await panel().getByLabel('Headers not sent').textContent()).toContain('Not sent by the browser: cookie.');
    seen.length = 0;
    await replayTo(corsOrigin);

    const replayed = page.getByRole('region', { name: 'Replayed answer' });
    await replayed.waitFor();
    expect(await replayed.textContent()).toContain('"globex"');
    expect(await replayed.getByRole('row', { name: /x-echo-tenant/ }).textContent()).toBe('x-echo-tenantglobex');
    expect(await page.getByRole('region', { name: 'Recorded answer' }).textContent()).toContain('"acme"');
    expect(await page.locator('.answer-line[role="status"]').textContent()).toMatch(/^Replayed: 200 OK in .* ms\)$/);
    const diff = page.getByRole('table', { name: /differences: recorded → replayed/ });
    expect(await diff.getByRole('row', { name: /request\.headers\["x-tenant"\]/ }).textContent()).toBe(
      'request.headers["x-tenant"]"acme""globex"',
    );
    expect(await diff.getByRole('row', { name: /response\.body\.tenant/ }).textContent()).toBe(
      'response.body.tenant"acme""globex"',
    );

    // The app got the edited header, the preflight first, and never the daemon's token.
    const sent = seen.find((r) => r.method === 'POST');
    expect(seen[0]?.method).toBe('OPTIONS');
    expect(sent?.headers['x-tenant']).toBe('globex');
    expect(sent?.headers.cookie).toBeUndefined();
    expect(JSON.stringify(seen)).not.toContain(token);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('reaches an origin listed with --ui-replay-origin; says which flag allows one it is not', async () => {
    await openReplay();
    await replayTo(listedOrigin);
    expect(await page.getByRole('region', { name: 'Replayed answer' }).textContent()).toContain('"globex"');

    const unlisted = listedOrigin.replace('127.0.0.2', '127.0.0.3');
    await replayTo(unlisted, false);
    expect(await page.getByRole('alert').textContent()).toContain(`taplined --ui-replay-origin ${unlisted}`);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('says an app that does not answer CORS must, and gives the shell command that needs none', async () => {
    await openReplay();
    await replayTo(plainOrigin);
    const alert = page.getByRole('alert');
    expect(await alert.textContent()).toContain(`It must send Access-Control-Allow-Origin: ${daemon.url}`);
    expect(await alert.getByLabel('Replay command').textContent()).toBe(
      `tapline traffic replay ${sourceId} ${entryId} --to ${plainOrigin} --set-header 'x-tenant: globex'`,
    );
    expect(await seriousViolations(page)).toEqual([]);
  });
});
