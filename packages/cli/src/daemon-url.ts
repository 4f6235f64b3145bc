import { credentialsFile, DEFAULT_URL } from '@tapline/shared';
import { readCredentials, readEndpoint } from './credentials.js';
import { CliError, EXIT } from './exit-codes.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface FoundUrl {
  readonly url: string;
  /** `--url`, `TAPLINE_URL`, the file it was read from, or `default`. */
  readonly from: string;
}

/** Whether a process with this id exists; EPERM means it does, under another user. */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error instanceof Error && 'code' in error && error.code === 'EPERM';
  }
}

/**
 * --url, then TAPLINE_URL (empty counts as unset), then the URL stored by `tapline login` (its
 * token belongs to that daemon), then `<home>/daemon.json` written by the daemon running on this
 * home, then the default. A daemon.json whose process is gone is an error naming the file, not a
 * silent fall back to the default port, where another daemon would refuse this home's token.
 */
export function resolveUrl(flag: string | undefined, env: Env, home: string): FoundUrl {
  if (flag) return { url: flag, from: '--url' };
  if (env.TAPLINE_URL) return { url: env.TAPLINE_URL, from: 'TAPLINE_URL' };
  const stored = readCredentials(home)?.url;
  if (stored) return { url: stored, from: credentialsFile(home) };
  const endpoint = readEndpoint(home);
  if (!endpoint) return { url: DEFAULT_URL, from: 'default' };
  if (!processAlive(endpoint.pid)) {
    throw new CliError(
      EXIT.UNREACHABLE,
      `the daemon recorded in ${endpoint.file} (pid ${endpoint.pid}, ${endpoint.url}) is no longer running`,
      `start it with \`taplined --home ${home}\` (it rewrites the file), or pass --url`,
    );
  }
  return { url: endpoint.url, from: endpoint.file };
}
