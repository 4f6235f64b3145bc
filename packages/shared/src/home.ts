import { homedir } from 'node:os';
import { join } from 'node:path';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 7468;
export const DEFAULT_URL = `http://${DEFAULT_HOST}:${DEFAULT_PORT}`;

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Tapline's home, resolved alike by the daemon and the CLI so that both find `<home>/token`:
 * the flag, else TAPLINE_HOME, else $XDG_DATA_HOME/tapline, else ~/.local/share/tapline.
 * Empty values count as unset.
 */
export function resolveHome(flag: string | undefined, env: Env): string {
  if (flag) return flag;
  if (env.TAPLINE_HOME) return env.TAPLINE_HOME;
  if (env.XDG_DATA_HOME) return join(env.XDG_DATA_HOME, 'tapline');
  return join(env.HOME || homedir(), '.local', 'share', 'tapline');
}

export const tokenFile = (home: string) => join(home, 'token');
export const credentialsFile = (home: string) => join(home, 'credentials');
/** Where a running daemon says it listens: `{"url", "pid"}`, owner-only, removed on a clean stop. */
export const endpointFile = (home: string) => join(home, 'daemon.json');
