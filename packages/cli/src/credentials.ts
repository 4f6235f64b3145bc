import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { dirname } from 'node:path';
import { credentialsFile, endpointFile, tokenFile } from '@tapline/shared';
import { z } from 'zod';

const Credentials = z.object({ token: z.string().min(1), url: z.string().optional(), email: z.string().optional() });
export type Credentials = z.infer<typeof Credentials>;

/** A JSON file of the home checked against `schema`; undefined when absent, unreadable or not of that shape. */
function readJsonFile<T>(path: string, schema: z.ZodType<T>): T | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export const readCredentials = (home: string): Credentials | undefined =>
  readJsonFile(credentialsFile(home), Credentials);

export function writeCredentials(home: string, credentials: Credentials): string {
  const path = credentialsFile(home);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}

const Endpoint = z.object({ url: z.string().min(1), pid: z.number().int().positive() });
export type Endpoint = z.infer<typeof Endpoint> & { readonly file: string };

/** What a running daemon wrote to `<home>/daemon.json`; undefined when absent or unreadable. */
export function readEndpoint(home: string): Endpoint | undefined {
  const file = endpointFile(home);
  const found = readJsonFile(file, Endpoint);
  return found ? { ...found, file } : undefined;
}

export function readDaemonToken(home: string): string | undefined {
  const path = tokenFile(home);
  if (!existsSync(path)) return undefined;
  return readFileSync(path, 'utf8').trim() || undefined;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * docs/decisions.md §14.2: --token, then TAPLINE_TOKEN (empty counts as unset), then the token
 * stored by `tapline login`, then the daemon's `<home>/token`.
 */
export function resolveToken(
  flag: string | undefined,
  env: Env,
  home: string,
): { token: string; from: string } | undefined {
  if (flag) return { token: flag, from: '--token' };
  if (env.TAPLINE_TOKEN) return { token: env.TAPLINE_TOKEN, from: 'TAPLINE_TOKEN' };
  const stored = readCredentials(home);
  if (stored) return { token: stored.token, from: credentialsFile(home) };
  const daemon = readDaemonToken(home);
  if (daemon) return { token: daemon, from: tokenFile(home) };
  return undefined;
}
