import type { HeaderMap, JsonValue } from '@tapline/shared';

export const REDACTED = '[REDACTED]';
const SECRET_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key'];
const SECRET_KEY_PATTERN = 'password|passwd|secret|token|api[-_]?key|authorization|session';

export interface Redactor {
  headers(headers: HeaderMap): HeaderMap;
  /** Query parameters and bodies: keys at any depth whose names look secret. */
  values<T extends JsonValue | HeaderMap>(value: T): T;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Secrets are replaced before anything is stored, so neither the database nor any later reader
 * (list, stream, webhook) ever holds them. `extraKeys` adds names to both headers and keys.
 */
export function createRedactor(options: { enabled: boolean; extraKeys: readonly string[] }): Redactor {
  if (!options.enabled) return { headers: (h) => h, values: (v) => v };
  const extra = options.extraKeys.map((k) => k.trim().toLowerCase()).filter(Boolean);
  const keyPattern = new RegExp([SECRET_KEY_PATTERN, ...extra.map(escape)].join('|'), 'i');
  const headerNames = new Set([...SECRET_HEADERS, ...extra]);

  const isSecretHeader = (name: string) => headerNames.has(name.toLowerCase()) || keyPattern.test(name);

  function deep(value: JsonValue): JsonValue {
    if (Array.isArray(value)) return value.map(deep);
    if (value !== null && typeof value === 'object') {
      const out: Record<string, JsonValue> = {};
      for (const [key, inner] of Object.entries(value)) out[key] = keyPattern.test(key) ? REDACTED : deep(inner);
      return out;
    }
    return value;
  }

  return {
    headers(headers) {
      const out: HeaderMap = {};
      for (const [name, value] of Object.entries(headers)) out[name] = isSecretHeader(name) ? (Array.isArray(value) ? value.map(() => REDACTED) : REDACTED) : value;
      return out;
    },
    values: <T extends JsonValue | HeaderMap>(value: T) => deep(value as JsonValue) as T,
  };
}
