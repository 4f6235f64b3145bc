import { gunzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { composeBody } from '@tapline/testkit';
import { cli, type SpawnedDaemon, startDaemon, tempHome } from './support/binaries.js';
import { launchChromium, seriousViolations, watchErrors } from './support/browser.js';
import { compose, createSource } from './support/compose.js';
import { inkedPixels, rawGet, shownTargets, userToken } from './support/web-ui.js';

const home = tempHome('tapline-web-');
const EMAIL = 'ana@example.com';
const PASSWORD = 'correct horse battery';
const XSS_PATH = '/p/<img src=x onerror="window.__xss=1">';
const XSS_HEADER = '<script>window.__xss=2</script>';
const XSS_LINK = 'javascript:window.__xss=3';

let daemon: SpawnedDaemon;
let browser: Browser;
let token: string;
let sourceId: string;
let context: BrowserContext;
let page: Page;
let errors: string[];

async function newPage(): Promise<void> {
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  errors = watchErrors(page);
}

const signedInUrl = (query = '') => `${daemon.url}/${query}#token=${encodeURIComponent(token)}`;

async function noSeriousViolations(): Promise<void> {
  expect(await seriousViolations(page)).toEqual([]);
}

beforeAll(async () => {
  daemon = await startDaemon(home.path);
  token = await userToken(home.path, daemon.url, EMAIL, PASSWORD);
  sourceId = await createSource(daemon.url, token, 'shop');
  for (let i = 0; i < 5; i++)
    await compose(daemon.url, token, sourceId, {
      pathnameUrl: `/users/${i}`,
      route: '/users/:id',
      status: i === 4 ? 503 : 200,
      elapsedTime: 10 + i * 40,
    });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
  home.remove();
});

describe('the web UI as served', () => {
  it('answers / with a strict Content-Security-Policy, and hashed assets cached for good, gzipped, at most 250 KB of script', async () => {
    const index = await fetch(`${daemon.url}/`, { headers: { 'accept-encoding': 'gzip' } });
    expect(index.status).toBe(200);
    const csp = index.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(index.headers.get('x-content-type-options')).toBe('nosniff');
    expect(index.headers.get('referrer-policy')).toBe('no-referrer');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const html = await index.text();
    expect(html).not.toMatch(/<script>|<script [^>]*>[^<]/);
    expect([...html.matchAll(/<script [^>]*src="\/assets\/[^"]+\.js"/g)]).toHaveLength(1);
    // Every script the page may load: the one index.html names, the chunk it preloads, and each
    // chunk a script imports (the views loaded when first shown), followed to the end.
    const scripts = [...html.matchAll(/(?:src|href)="\/assets\/([^"]+\.js)"/g)].map((m) => m[1] ?? '');
    let gzipped = 0;
    for (let i = 0; i < scripts.length; i++) {
      const asset = await rawGet(`${daemon.url}/assets/${scripts[i]}`, { 'accept-encoding': 'gzip' });
      expect(asset.status).toBe(200);
      expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(asset.headers['content-encoding']).toBe('gzip');
      const text = gunzipSync(asset.body);
      expect(text.length).toBeGreaterThan(asset.body.length);
      gzipped += asset.body.length;
      for (const [, name] of text.toString('utf8').matchAll(/["'](?:\.\/|\/?assets\/)([\w.-]+\.js)["']/g))
        if (name && !scripts.includes(name)) scripts.push(name);
    }
    expect(scripts.length).toBeGreaterThan(1);
    expect(gzipped).toBeLessThanOrEqual(250 * 1024);
  });

  it('answers the page only to a Host that names the daemon (DNS rebinding)', async () => {
    const port = new URL(daemon.url).port;
    expect((await rawGet(`${daemon.url}/`, { host: `localhost:${port}` })).status).toBe(200);
    expect((await rawGet(`${daemon.url}/`, { host: `127.0.0.1:${port}` })).status).toBe(200);
    expect((await rawGet(`${daemon.url}/`, { host: `attacker.example:${port}` })).status).toBe(421);
  });

  it('serves no page with --no-ui, and answers to the names of --ui-host', async () => {
    const other = tempHome('tapline-web-off-');
    const off = await startDaemon(other.path, ['--no-ui']);
    try {
      expect((await fetch(`${off.url}/`)).status).toBe(404);
    } finally {
      await off.stop();
    }
    const named = await startDaemon(other.path, ['--ui-host', 'tapline.internal']);
    try {
      expect((await rawGet(`${named.url}/`, { host: 'tapline.internal' })).status).toBe(200);
      expect((await rawGet(`${named.url}/`, { host: 'other.internal' })).status).toBe(421);
    } finally {
      await named.stop();
      other.remove();
    }
  });
});

describe('the web UI in Chromium', { timeout: 90_000 }, () => {
  afterEach(async () => {
    // No view may throw or log an error on its way, whatever the test did.
    expect(errors).toEqual([]);
    await context.close();
  });

  it('signs in with e-mail and password, and says so when the password is wrong', async () => {
    await newPage();
    await page.goto(`${daemon.url}/`);
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill('wrong password!');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Wrong e-mail or password.');
    await noSeriousViolations();
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('listbox', { name: /Traffic, 5 entries/ }).waitFor();
    expect(await page.evaluate('window.sessionStorage.length')).toBe(1);
    expect(await page.evaluate('document.cookie')).toBe('');
  });

  it('takes a token from the fragment and removes it from the address bar', async () => {
    await newPage();
    await page.goto(signedInUrl());
    await page.getByRole('listbox', { name: /Traffic, 5 entries/ }).waitFor();
    expect(page.url()).not.toContain('token');
    expect(page.url()).toContain(`source=${sourceId}`);
    await noSeriousViolations();
  });

  it('shows an entry composed by the test within a second', async () => {
    await newPage();
    await page.goto(signedInUrl());
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    const composed = Date.now();
    await compose(daemon.url, token, sourceId, { pathnameUrl: '/live/arrival' });
    await page.locator('[role="option"]', { hasText: '/live/arrival' }).waitFor({ timeout: 5_000 });
    expect(Date.now() - composed).toBeLessThan(1_000);
  });

  it('shows the newest entries first and fills the list to the newest 1,000 behind them, each once, in order', async () => {
    // 1,050 entries a second apart, /fill/0 the oldest; the list holds the 1,000 newest (/fill/50 to /fill/1049).
    // Another user's source, so that the other tests' user still has one source only.
    const fillToken = await userToken(home.path, daemon.url, 'fill@example.com', PASSWORD);
    const fillSource = await createSource(daemon.url, fillToken, 'fill');
    const start = Date.parse('2026-11-27T08:00:00.000Z');
    for (let from = 0; from < 1050; from += 350) {
      const body = Array.from({ length: 350 }, (_, i) =>
        composeBody(fillSource, {
          pathnameUrl: `/fill/${from + i}`,
          startedAt: new Date(start + (from + i) * 1000).toISOString(),
        }),
      );
      const answer = await fetch(`${daemon.url}/http-traffic-record/${fillSource}/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fillToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(answer.status).toBe(201);
    }
    await newPage();
    // Whether the shell (its views' navigation) was first drawn with the list's rows already in it,
    // not empty and then filled: one layout and paint before the first row, not two.
    await page.addInitScript(`new MutationObserver((_, observer) => {
      if (!document.querySelector('nav[aria-label="Views"]')) return;
      window.__shellWithRows = document.querySelector('[role="option"]') !== null;
      observer.disconnect();
    }).observe(document, { childList: true, subtree: true })`);
    const asked: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === `/http-traffic/${fillSource}`) asked.push(url.searchParams.get('limit') ?? '');
    });
    await page.goto(`${daemon.url}/?source=${fillSource}#token=${encodeURIComponent(fillToken)}`);
    await page.getByRole('listbox', { name: 'Traffic, 1000 entries' }).waitFor();
    // A screenful or so first (less to check and draw before the first row), then the rest.
    expect(asked).toEqual(['100', '1000']);
    expect(await page.evaluate('window.__shellWithRows')).toBe(true);
    expect((await shownTargets(page))[0]).toContain('/fill/1049');
    await page.getByRole('listbox').focus();
    await page.keyboard.press('End');
    await expect.poll(async () => (await shownTargets(page)).at(-1)).toContain('/fill/50');
    const bottom = await shownTargets(page);
    const numbers = bottom.map((target) => Number(/\/fill\/(\d+)$/.exec(target)?.[1]));
    expect(numbers).toEqual(numbers.map((_, i) => (numbers[0] ?? 0) - i));
  });

  it('filters with the language, and shows the error and its column of a bad expression, the list unchanged', async () => {
    await newPage();
    await page.goto(signedInUrl());
    const list = page.getByRole('listbox');
    await list.waitFor();
    // The list box is drawn before its first page arrives: compare against the rows, not an empty list.
    await expect.poll(() => shownTargets(page)).not.toEqual([]);
    const before = await shownTargets(page);
    const filter = page.getByLabel('Filter');
    await filter.fill('stauts=500');
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent()).toContain('column 1');
    expect(await alert.textContent()).toContain('unknown field');
    expect(await filter.getAttribute('aria-invalid')).toBe('true');
    await filter.press('Enter');
    expect(await shownTargets(page)).toEqual(before);
    await filter.fill('status>=500');
    await filter.press('Enter');
    await expect.poll(() => shownTargets(page)).toEqual(['shop.example.com/users/4']);
    expect(new URL(page.url()).searchParams.get('q')).toBe('status>=500');
  });

  it('is usable from the keyboard alone: / filters, j and k move, Enter opens, Tab reaches the way back', async () => {
    await newPage();
    await page.goto(signedInUrl());
    await page.getByRole('listbox').waitFor();
    await page.keyboard.press('/');
    expect(await page.evaluate("document.activeElement.closest('.filter-bar') !== null")).toBe(true);
    await page.keyboard.type('path^="/users/"');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Escape');
    await expect.poll(() => shownTargets(page)).toHaveLength(5);
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    await page.keyboard.press('Enter');
    await page.getByRole('article', { name: 'Entry' }).waitFor();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('/users/3');
    await page.getByRole('button', { name: '← Traffic' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('listbox').waitFor();
    await page.keyboard.press('?');
    await page.getByRole('complementary', { name: 'Keys' }).waitFor();
  });

  it('shows a record, request and response side by side, with recorded markup inert', async () => {
    const { id } = await compose(daemon.url, token, sourceId, {
      pathnameUrl: XSS_PATH,
      requestHeaders: { 'x-evil': XSS_HEADER },
      requestBody: { link: XSS_LINK, nested: { html: XSS_HEADER } },
    });
    await newPage();
    await page.goto(signedInUrl(`?view=traffic&source=${sourceId}`));
    await page.locator('[role="option"]', { hasText: '/p/<img' }).dblclick();
    await page.getByRole('article', { name: 'Entry' }).waitFor();
    expect(new URL(page.url()).searchParams.get('entry')).toBe(id);
    await page.getByRole('region', { name: 'Request' }).getByText(XSS_HEADER).first().waitFor();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain(XSS_PATH);
    await page.getByRole('region', { name: 'Request' }).getByText(`"${XSS_LINK}"`).waitFor();
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(await page.locator('img, a[href^="javascript:"], iframe').count()).toBe(0);
    await noSeriousViolations();
    await page.getByRole('button', { name: 'Show raw' }).first().click();
    await page.getByText(/"link": "javascript:window.__xss=3"/).waitFor();
    expect(await page.evaluate('window.__xss')).toBeUndefined();
  });

  it('diffs an entry against a marked one', async () => {
    const entries = (await (
      await fetch(`${daemon.url}/http-traffic/${sourceId}?q=path^="/users/"&limit=10`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as { data: { id: string; pathname: string }[] };
    const byPath = (path: string) => entries.data.find((e) => e.pathname === path)?.id ?? '';
    await newPage();
    await page.goto(signedInUrl(`?view=record&source=${sourceId}&entry=${byPath('/users/0')}`));
    await page.getByRole('button', { name: 'Mark for diff' }).click();
    await page.getByRole('button', { name: 'Marked for diff' }).waitFor();
    await page.goto(`${daemon.url}/?view=record&source=${sourceId}&entry=${byPath('/users/4')}`);
    await page.getByRole('button', { name: 'Diff with marked' }).click();
    const table = page.getByRole('table', { name: /differences/ });
    await table.waitFor();
    expect(await table.getByRole('row', { name: /^status/ }).textContent()).toBe('status200503');
    expect(await table.getByRole('row', { name: /^url/ }).textContent()).toContain('/users/0');
    await noSeriousViolations();
  });

  it('shows a clear not-found view for an entry a shared link names that does not exist', async () => {
    await newPage();
    await page.goto(signedInUrl(`?view=record&source=${sourceId}&entry=01a1fc99-9069-75ce-b9c9-231f264bbe69`));
    await page.getByRole('heading', { name: 'Entry not found' }).waitFor();
    await noSeriousViolations();
  });

  it("keeps the page when a view's code cannot be loaded (the daemon upgraded under an open tab), and says so", async () => {
    await newPage();
    // The routes view's chunk answers 404, as an older page's chunk does after an upgrade.
    await page.route(/\/RoutesView-[^/]+\.js$/, (route) => route.fulfill({ status: 404, body: '' }));
    await page.goto(signedInUrl());
    await page.getByRole('listbox', { name: /Traffic, \d+ entries/ }).waitFor();
    await page.getByRole('button', { name: 'Routes', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('This view could not be loaded');
    await page.getByRole('button', { name: 'Reload the page' }).waitFor();
    await page.getByRole('button', { name: 'Traffic', exact: true }).click();
    await page.getByRole('listbox', { name: /Traffic, \d+ entries/ }).waitFor();
    // What the browser and React log of the failed chunk, and nothing else.
    expect(errors.every((e) => /RoutesView|dynamically imported module/.test(e))).toBe(true);
    errors.length = 0;
  });

  it('draws the routes dashboard: the table, sortable, and a chart that has pixels on it', async () => {
    await newPage();
    await page.goto(signedInUrl(`?view=routes&source=${sourceId}`));
    const row = page.getByRole('row', { name: /GET \/users\/\{id\}/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('20.0 %');
    const chart = page.getByRole('img', { name: /p95 latency over time/ });
    await chart.locator('canvas').waitFor();
    const empty = await inkedPixels(browser, await page.getByRole('heading', { level: 2 }).screenshot());
    const inked = await inkedPixels(browser, await chart.locator('canvas').screenshot());
    expect(empty).toBeGreaterThan(0);
    expect(inked).toBeGreaterThan(500);
    await page.getByRole('button', { name: 'Requests', exact: true }).click();
    expect(await page.getByRole('columnheader', { name: 'Requests', exact: true }).getAttribute('aria-sort')).toBe(
      'descending',
    );
    await noSeriousViolations();
    await row.getByRole('button', { name: /Traffic/ }).click();
    await page.getByRole('listbox').waitFor();
    expect(new URL(page.url()).searchParams.get('q')).toBe('route="/users/{id}"');
    await expect.poll(() => shownTargets(page)).toHaveLength(5);
  });

  it('sends a user whose token was revoked back to the sign-in page, saying why; signing out revokes', async () => {
    await newPage();
    await page.goto(signedInUrl());
    await page.getByRole('listbox').waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('status').filter({ hasText: 'You signed out.' }).waitFor();
    expect(await page.evaluate('window.sessionStorage.length')).toBe(0);
    const me = await fetch(`${daemon.url}/auth/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(401);
    await page.goto(signedInUrl());
    await page.getByText('Your token was revoked or is no longer valid. Sign in again.').waitFor();
    const login = await fetch(`${daemon.url}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
    });
    token = ((await login.json()) as { token: string }).token;
  });

  it('tapline open starts the browser signed in, the token on no command line and gone from the address bar', async () => {
    const cliHome = tempHome('tapline-open-');
    const browserScript = join(cliHome.path, 'browser.sh');
    const opened = join(cliHome.path, 'opened.txt');
    writeFileSync(browserScript, `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`);
    chmodSync(browserScript, 0o755);
    try {
      const result = await cli(['open'], {
        home: cliHome.path,
        env: { BROWSER: browserScript, TAPLINE_URL: daemon.url, TAPLINE_TOKEN: token },
      });
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toBe(`opened ${daemon.url}/ in the browser, signed in as ${EMAIL}`);
      const target = readFileSync(opened, 'utf8');
      expect(target).toMatch(/^file:\/\/.*\/open\.html$/);
      expect(target).not.toContain(token);
      await newPage();
      await page.goto(target);
      await page.getByRole('listbox').waitFor();
      // The view is written to the address once the app has drawn it, which may come after the list.
      await expect.poll(() => page.url().startsWith(`${daemon.url}/?view=traffic`)).toBe(true);
      expect(page.url()).not.toContain('token');
    } finally {
      cliHome.remove();
    }
  });

  it('shows "Reconnecting" while the daemon is away and resumes from its cursor when it is back', async () => {
    await newPage();
    await page.goto(signedInUrl());
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    const port = new URL(daemon.url).port;
    await daemon.stop();
    await page.getByRole('status').filter({ hasText: 'Reconnecting' }).waitFor({ timeout: 10_000 });
    daemon = await startDaemon(home.path, ['--port', port]);
    await compose(daemon.url, token, sourceId, { pathnameUrl: '/after/restart' });
    await page.locator('[role="option"]', { hasText: '/after/restart' }).waitFor({ timeout: 10_000 });
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
  });
});
