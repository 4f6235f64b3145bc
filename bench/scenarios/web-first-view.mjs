// The web UI's first view (issue 29: "usable within 1 s on loopback"): from navigation start to
// the traffic list's first row painted, in Debian's chromium driven by playwright-core, signed in
// through the URL fragment as `tapline open` does, against the built daemon holding realistic
// entries. Cold: a fresh browser context (empty cache, no session); warm: the same context loading
// the page again (hashed assets cached immutable, token in sessionStorage). The floor, in the same
// rounds: the same browser loading from node:http a static page of the same bytes (the served
// HTML with its first row in the markup, the served stylesheet, and the scripts index.html names or
// preloads (the first module and the page's chunk; the views' chunks are not part of the first view)
// each wrapped in a function never called, so parsed but not run; gzipped alike): what transfer,
// parse and first paint cost before any of the page's own work. The page's headers are the served ones too.
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createSource, KEEP_EVERYTHING, startDaemon } from '../lib.mjs';
import { figure, interleave, versus } from '../figures.mjs';
import { realisticRecord } from '../realistic.mjs';

const CHROMIUM = '/usr/bin/chromium';
const FLOOR = 'static page of the same size';
const SECURITY = [
  'content-security-policy',
  'x-content-type-options',
  'referrer-policy',
  'x-frame-options',
  'cross-origin-opener-policy',
];

export const figures = [
  'first row visible, cold cache ms',
  'first row visible, warm cache ms',
  `floor: ${FLOOR}, cold cache ms`,
  `floor: ${FLOOR}, warm cache ms`,
  'entries stored',
];

/**
 * Run in the page before its own script (through the DevTools protocol, which the page's CSP does
 * not govern): the time, from navigation start, of the frame in which the first row is painted.
 */
const FIRST_ROW_CLOCK = `(() => {
  const seen = () => {
    if (window.__firstRow !== undefined || !document.querySelector('[role="option"]')) return false;
    window.__firstRow = null;
    requestAnimationFrame(() => { window.__firstRow = performance.now(); });
    return true;
  };
  new MutationObserver((_, observer) => { if (seen()) observer.disconnect(); })
    .observe(document, { childList: true, subtree: true });
})()`;

async function load(page, url) {
  await page.goto('about:blank');
  await page.goto(url);
  // Polled with evaluate (the DevTools protocol): waitForFunction evaluates a string, which the CSP forbids.
  const until = Date.now() + 30_000;
  for (;;) {
    const at = await page.evaluate('window.__firstRow');
    if (typeof at === 'number') return at;
    if (Date.now() > until) throw new Error(`no traffic row within 30 s at ${page.url()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A cold load in a fresh context, then a warm one in the same context. */
async function coldAndWarm(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    await context.addInitScript(FIRST_ROW_CLOCK);
    const page = await context.newPage();
    const cold = await load(page, url);
    const warm = await load(page, url);
    return { cold, warm };
  } finally {
    await context.close();
  }
}

/** The served page's files, fetched from the daemon, for the floor to serve the same bytes. */
async function servedFiles(url) {
  const index = await fetch(`${url}/`);
  const html = await index.text();
  // The page's own policy headers too (a cross-origin-opener-policy alone can cost a new renderer).
  const security = Object.fromEntries(SECURITY.map((name) => [name, index.headers.get(name) ?? '']));
  const paths = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]);
  const files = new Map([['/', { body: html, type: 'text/html; charset=utf-8' }]]);
  for (const path of paths) {
    const text = await (await fetch(`${url}${path}`)).text();
    const js = path.endsWith('.js');
    files.set(path, {
      body: js ? `(function () {\n${text}\n});` : text,
      type: js ? 'text/javascript' : 'text/css',
      immutable: true,
    });
  }
  // The first row, in the markup from the start.
  files.set('/', {
    ...files.get('/'),
    headers: security,
    body: html.replace('<div id="root"></div>', '<div id="root"><div role="option">GET 200 /api/orders</div></div>'),
  });
  return files;
}

function staticServer(files) {
  const server = createServer((req, res) => {
    const file = files.get(new URL(req.url, 'http://x').pathname);
    if (!file) return res.writeHead(404).end();
    res.writeHead(200, {
      'content-type': file.type,
      'content-encoding': 'gzip',
      'cache-control': file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      ...file.headers,
    });
    res.end(file.gzip);
  });
  for (const file of files.values()) file.gzip = gzipSync(file.body);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export default async function run({ root, log, quick, tmp }) {
  if (!existsSync(CHROMIUM)) return { figures: {}, skipped: { 'first row': `${CHROMIUM} is not installed` } };
  // playwright-core is the browser tests' dependency (e2e/package.json).
  const { chromium } = createRequire(join(root, 'e2e', 'package.json'))('playwright-core');
  const entries = quick ? 200 : 5_000;
  const rounds = quick ? 1 : 9;
  const home = tmp();
  const daemon = await startDaemon(root, home.path, KEEP_EVERYTHING);
  let server;
  let browser;
  try {
    const source = await createSource(daemon.url, daemon.token, 'shop');
    for (let done = 0; done < entries; done += 500) {
      const records = Array.from({ length: Math.min(500, entries - done) }, (_, i) =>
        realisticRecord(source.id, done + i),
      );
      const response = await fetch(`${daemon.url}/http-traffic-record/${source.id}/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(records),
      });
      if (response.status !== 201) throw new Error(`batch answered ${response.status}: ${await response.text()}`);
      await response.arrayBuffer();
    }
    log(`${entries} entries stored`);
    server = await staticServer(await servedFiles(daemon.url));
    const floorUrl = `http://127.0.0.1:${server.address().port}/`;
    const pageUrl = `${daemon.url}/?source=${source.id}#token=${encodeURIComponent(daemon.token)}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    await coldAndWarm(browser, pageUrl); // the browser's own first start is no page's cost
    const values = await interleave(
      rounds,
      [
        ['floor', () => coldAndWarm(browser, floorUrl)],
        ['tapline', () => coldAndWarm(browser, pageUrl)],
      ],
      log,
    );
    const of = (name, key) => values[name].map((v) => v[key]);
    return {
      figures: {
        'first row visible, cold cache ms': versus('ms', of('tapline', 'cold'), { [FLOOR]: of('floor', 'cold') }),
        'first row visible, warm cache ms': versus('ms', of('tapline', 'warm'), { [FLOOR]: of('floor', 'warm') }),
        [`floor: ${FLOOR}, cold cache ms`]: figure('ms', of('floor', 'cold')),
        [`floor: ${FLOOR}, warm cache ms`]: figure('ms', of('floor', 'warm')),
        'entries stored': figure('entries', [entries]),
      },
    };
  } finally {
    await browser?.close();
    server?.close();
    await daemon.stop();
    home.remove();
  }
}
