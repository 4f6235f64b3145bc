import { createClient, DEFAULT_URL, resolveHome, type TaplineClient } from '@tapline/shared';
import { resolveUrl } from './daemon-url.js';
import { createColors } from 'picocolors';
import { resolveToken } from './credentials.js';
import { CliError, EXIT } from './exit-codes.js';
import type { Io } from './io.js';

export interface GlobalOptions {
  readonly url?: string;
  readonly token?: string;
  readonly home?: string;
  readonly json?: boolean;
  readonly ndjson?: boolean;
  /** commander's `--no-color` sets this false. */
  readonly color?: boolean;
  readonly debug?: boolean;
}

export type OutputMode = 'table' | 'json' | 'ndjson';
export type Colors = ReturnType<typeof createColors>;

export interface CliContext {
  readonly io: Io;
  readonly url: string;
  /** Where the URL came from: `--url`, `TAPLINE_URL`, a file of the home, or `default`. */
  readonly urlFrom: string;
  readonly home: string;
  readonly client: TaplineClient;
  /** Where the token came from (for `tapline status`), or null when there is none. */
  readonly tokenFrom: string | null;
  /** The token itself, for the commands about it (`auth status` reads its expiry); never printed. */
  readonly token: string | null;
  readonly mode: OutputMode;
  readonly colors: Colors;
  /** Terminal width for tables; `Infinity` when piped, so nothing is truncated. */
  readonly width: number;
  readonly debug: boolean;
  /** Writes one line to stdout. */
  print(line?: string): void;
  /** Writes one line to stderr (progress, notices: never data). */
  note(line: string): void;
}

const REQUEST_TIMEOUT_MS = 30_000;

/** Exit 4: no token anywhere the CLI looks (docs/decisions.md §14.2). */
export const noToken = (home: string) =>
  new CliError(
    EXIT.AUTH,
    `no token found (looked at --token, TAPLINE_TOKEN, ${home}/credentials and ${home}/token)`,
    'start `taplined` once on this machine, log in with `tapline login --email <you>`, or pass --token',
  );

export function createContext(globals: GlobalOptions, io: Io, options: { requireToken?: boolean } = {}): CliContext {
  const home = resolveHome(globals.home, io.env);
  const found = resolveUrl(globals.url, io.env, home);
  const url = found.url.replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+/.test(url))
    throw new CliError(EXIT.USAGE, `--url must be an http(s) URL such as ${DEFAULT_URL} (got "${url}")`);
  const token = resolveToken(globals.token, io.env, home);
  if (!token && options.requireToken !== false) throw noToken(home);
  if (globals.json && globals.ndjson) throw new CliError(EXIT.USAGE, 'choose one of --json and --ndjson');
  const tty = io.stdout.isTTY === true;
  const colorOn = tty && globals.color !== false && !io.env.NO_COLOR && io.env.TERM !== 'dumb';
  return {
    io,
    url,
    urlFrom: found.from,
    home,
    client: createClient({ baseUrl: url, token: token?.token, timeoutMs: REQUEST_TIMEOUT_MS }),
    tokenFrom: token?.from ?? null,
    token: token?.token ?? null,
    mode: globals.json ? 'json' : globals.ndjson ? 'ndjson' : 'table',
    colors: createColors(colorOn),
    width: tty ? (io.stdout.columns ?? 80) : Number.POSITIVE_INFINITY,
    debug: globals.debug === true,
    print: (line = '') => io.stdout.write(`${line}\n`),
    note: (line) => io.stderr.write(`${line}\n`),
  };
}
