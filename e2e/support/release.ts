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
