import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { dirname } from 'node:path';
import { credentialsFile, tokenFile } from '@tapline/shared';
import { z } from 'zod';

const Credentials = z.object({ token: z.string().min(1), url: z.string().optional(), email: z.string().optional() });
export type Credentials = z.infer<typeof Credentials>;

export function readCredentials(home: string): Credentials | undefined {
  const path = credentialsFile(home);
  if (!existsSync(path)) return undefined;
  try {
    const parsed = Credentials.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export function writeCredentials(home: string, credentials: Credentials): string {
  const path = credentialsFile(home);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
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
export function resolveToken(flag: string | undefined, env: Env, home: string): { token: string; from: string } | undefined {
  if (flag) return { token: flag, from: '--token' };
  if (env.TAPLINE_TOKEN) return { token: env.TAPLINE_TOKEN, from: 'TAPLINE_TOKEN' };
  const stored = readCredentials(home);
  if (stored) return { token: stored.token, from: credentialsFile(home) };
  const daemon = readDaemonToken(home);
  if (daemon) return { token: daemon, from: tokenFile(home) };
  return undefined;
}
