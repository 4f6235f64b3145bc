import { execa, type Options, type ResultPromise } from 'execa';
import { listeningUrl } from './binaries.js';

/** A daemon started from any command (a single executable, an npm-installed bin) and its URL. */
export interface Started {
  readonly url: string;
  readonly process: ResultPromise;
  /** SIGTERM and wait; resolves to the exit code and everything it wrote to stderr. */
  stop(): Promise<{ exitCode: number | undefined; stderr: string }>;
}

/** Runs `command args` and waits for its `taplined listening on` line. */
export async function startListening(command: string, args: readonly string[], options: Options): Promise<Started> {
  const child = execa(command, args, { ...options, reject: false, buffer: { stdout: false, stderr: true } });
  const url = await listeningUrl(child, command, 30_000);
  return {
    url,
    process: child,
    async stop() {
      child.kill('SIGTERM');
      const result = await child;
      return { exitCode: result.exitCode, stderr: String(result.stderr) };
    },
  };
}

/** One compose record, as `tapline record` takes it. */
export const sampleRecord = (pathnameUrl: string) => ({
  domainUrl: 'https://shop.example.com',
  pathnameUrl,
  status: 201,
  protocol: 'HTTPS',
  method: 'POST',
  elapsedTime: 42,
  requestHeaders: { 'content-type': 'application/json' },
  queryParams: {},
  responseHeaders: { 'content-type': 'application/json' },
  responseBody: { ok: true, note: 'x'.repeat(300) },
});

/**
 * Checks that the daemon at `url` serves the web UI (issue 29: the single executable and the npm
 * package carry it): the page with its policy, and every script and stylesheet it names, hashed
 * and cached for good.
 */
export async function expectWebUi(url: string): Promise<void> {
  const page = await fetch(`${url}/`);
  const html = await page.text();
  if (page.status !== 200 || !html.includes('<title>Tapline</title>'))
    throw new Error(`GET / answered ${page.status}: ${html.slice(0, 200)}`);
  if (!page.headers.get('content-security-policy')?.includes("default-src 'self'"))
    throw new Error(`GET / has no strict Content-Security-Policy: ${page.headers.get('content-security-policy')}`);
  const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1] ?? '');
  if (assets.length < 2) throw new Error(`the page names ${assets.length} assets: ${html}`);
  for (const asset of assets) {
    const answer = await fetch(`${url}${asset}`);
    const body = await answer.arrayBuffer();
    if (answer.status !== 200 || body.byteLength === 0 || !answer.headers.get('cache-control')?.includes('immutable'))
      throw new Error(
        `GET ${asset} answered ${answer.status}, ${body.byteLength} bytes, ${answer.headers.get('cache-control')}`,
      );
  }
}
