import { type IncomingHttpHeaders, request } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { admin } from './binaries.js';

export interface RawAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** As sent: not decompressed. */
  readonly body: Buffer;
}

/** A GET as sent and answered byte for byte: fetch will neither send a `Host` of the test's choosing nor keep a body gzipped. */
export function rawGet(url: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Pixels of a PNG that differ from its most common colour (the background), counted in the browser itself. */
export async function inkedPixels(browser: Browser, png: Buffer): Promise<number> {
  const page: Page = await browser.newPage();
  try {
    // A string, run in the page: this program is typed without the DOM.
    const count: unknown = await page.evaluate(`(async (dataUrl) => {
      const image = new Image();
      image.src = dataUrl;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.width;
      canvas.height = image.height;
      const context = canvas.getContext('2d');
      context.drawImage(image, 0, 0);
      const { data } = context.getImageData(0, 0, image.width, image.height);
      const counts = new Map();
      for (let i = 0; i < data.length; i += 4) {
        const key = data[i] * 65536 + data[i + 1] * 256 + data[i + 2];
        counts.set(key, (counts.get(key) || 0) + 1);
      }
      return data.length / 4 - Math.max(...counts.values());
    })(${JSON.stringify(`data:image/png;base64,${png.toString('base64')}`)})`);
    return Number(count);
  } finally {
    await page.close();
  }
}

/** The traffic rows' targets as shown, newest first. */
export const shownTargets = (page: Page) => page.locator('[role="option"] .target').allTextContents();

/** Adds a user with `tapline-admin` and signs in as them over the API: the token the web UI takes in its fragment. */
export async function userToken(home: string, url: string, email: string, password: string): Promise<string> {
  await admin(home, ['user', 'add', email, '--password-stdin'], password);
  const login = await fetch(`${url}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  return ((await login.json()) as { token: string }).token;
}
