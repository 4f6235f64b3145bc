import ms from 'ms';
import { UsageError } from '../exit-error.js';
import type { RetentionPolicy } from './options.js';

/** `30d`, `12h`, `90m`, `45s` (and `ms`'s other spellings); `off` only where `allowOff`. */
export function parseRetentionDuration(flag: string, text: string, allowOff: boolean): number | null {
  const trimmed = text.trim();
  if (allowOff && trimmed.toLowerCase() === 'off') return null;
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- ms reads any text (its types list only the forms it knows); what it cannot read is refused below
  const millis = /^\d+(\.\d+)?\s*[a-z]+$/i.test(trimmed) ? ms(trimmed as ms.StringValue) : Number.NaN;
  if (typeof millis !== 'number' || !Number.isFinite(millis) || millis < 1000) {
    throw new UsageError(
      `${flag} takes a duration of at least 1s such as 30d, 12h or 10m${allowOff ? ', or "off"' : ''} (got "${text}")`,
    );
  }
  return Math.round(millis);
}

/** Sizes are binary: 1KB = 1024 bytes, as `du -h` and SQLite's page sizes count. */
const UNITS: Record<string, number> = {
  b: 1,
  kb: 2 ** 10,
  kib: 2 ** 10,
  mb: 2 ** 20,
  mib: 2 ** 20,
  gb: 2 ** 30,
  gib: 2 ** 30,
  tb: 2 ** 40,
  tib: 2 ** 40,
};

/** `2GB`, `500MB`, `1.5gb` or a plain number of bytes; `off`. At least 1MB: less cannot hold a schema and a log. */
export function parseSize(flag: string, text: string): number | null {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === 'off') return null;
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/.exec(trimmed);
  const unit = UNITS[match?.[2] || 'b'];
  const bytes = match && unit ? Math.floor(Number(match[1]) * unit) : Number.NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 2 ** 20)
    throw new UsageError(`${flag} takes a size of at least 1MB such as 2GB or 500MB, or "off" (got "${text}")`);
  return bytes;
}

export function parseRetention(flags: { retention: string; maxDbSize: string; pruneEvery: string }): RetentionPolicy {
  return {
    maxAgeMs: parseRetentionDuration('--retention', flags.retention, true),
    maxBytes: parseSize('--max-db-size', flags.maxDbSize),
    everyMs: parseRetentionDuration('--prune-every', flags.pruneEvery, false) ?? 60_000,
  };
}
