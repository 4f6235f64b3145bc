/** What a redacted value becomes, wherever it was (docs/decisions.md §6). */
export const REDACTED = '[REDACTED]';

/** Headers that carry credentials whatever their value looks like (case-insensitive). */
export const SECRET_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
];

const SECRET_KEY_SOURCE = 'password|passwd|secret|token|api[-_]?key|authorization|session';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The one rule for names (headers, query keys, body keys in JSON, forms and multipart parts):
 * a name is secret when it contains a match, in any case. `extraKeys` (the daemon's
 * `--redact-keys`, already trimmed) are matched the same way. Never global, so `test` keeps no state.
 */
export function secretKeyPattern(extraKeys: readonly string[] = []): RegExp {
  return new RegExp([SECRET_KEY_SOURCE, ...extraKeys.map(escapeRegExp)].join('|'), 'i');
}

/** The built-in names alone: what a capture client knows, not having the daemon's `--redact-keys`. */
export const SECRET_KEYS = secretKeyPattern();
