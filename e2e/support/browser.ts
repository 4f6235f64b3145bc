import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

/**
 * Debian's chromium driven by playwright-core: Playwright's own browser download is not reachable
 * here, and CI installs the `chromium` package (.ci/run).
 */
export const CHROMIUM = '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/** Every uncaught exception and console error of a page, so a test can say there were none. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    // A refused fetch (401 of a revoked token, the daemon away) is logged by the browser itself;
    // what the page's code does about it is what the tests check.
    if (message.type() === 'error' && !/Failed to load resource|net::ERR_/.test(message.text()))
      errors.push(`console: ${message.text()}`);
  });
  page.on('dialog', (dialog) => {
    errors.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return errors;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  /** Selectors of the offending elements, and axe's summary of the first. */
  readonly nodes: readonly string[];
}

/**
 * axe-core's serious and critical violations on the page as it is. Evaluated through the DevTools
 * protocol, which the page's Content-Security-Policy does not govern: the policy stays as served.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  // A string, run in the page: this program is typed without the DOM.
  const found: unknown =
    await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ') + ': ' + (n.failureSummary || '')) })))`);
  return found as AxeViolation[];
}
