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
export interface RedactOptions {
  readonly enabled: boolean;
  readonly extraKeys: readonly string[];
}

export function createRedactor(options: RedactOptions): Redactor {
  if (!options.enabled) return { headers: (h) => h, values: (v) => v };
  const extra = options.extraKeys.map((k) => k.trim().toLowerCase()).filter(Boolean);
  const keyPattern = new RegExp([SECRET_KEY_PATTERN, ...extra.map(escape)].join('|'), 'i');
  const headerNames = new Set([...SECRET_HEADERS, ...extra]);

  const isSecretHeader = (name: string) => headerNames.has(name.toLowerCase()) || keyPattern.test(name);

  /**
   * Copy on write: a value with nothing to redact comes back as the same object, so a batch of
   * clean bodies allocates nothing here. Each member is redacted exactly once (redoing the ones
   * before a change would double the work at every level above a deep secret). Copies use
   * Object.fromEntries, which keeps a `__proto__` key as data instead of setting the prototype.
   */
  function deep(value: JsonValue): JsonValue {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) {
      let copy: JsonValue[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const inner = deep(value[i] as JsonValue);
        if (inner !== value[i]) (copy ??= value.slice())[i] = inner;
      }
      return copy ?? value;
    }
    const redact = (key: string, inner: JsonValue) => (keyPattern.test(key) ? REDACTED : deep(inner));
    let index = 0;
    for (const key in value) {
      const inner = value[key] as JsonValue;
      const changed = redact(key, inner);
      if (changed !== inner) {
        const first = index;
        return Object.fromEntries(Object.entries(value).map(([k, v], i) => [k, i < first ? v : i === first ? changed : redact(k, v as JsonValue)]));
      }
      index += 1;
    }
    return value;
  }

  return {
    headers(headers) {
      const hide = (name: string, value: string | string[]) => (isSecretHeader(name) ? (Array.isArray(value) ? value.map(() => REDACTED) : REDACTED) : value);
      for (const name in headers) {
        if (isSecretHeader(name)) return Object.fromEntries(Object.entries(headers).map(([n, v]) => [n, hide(n, v)]));
      }
      return headers;
    },
    values: <T extends JsonValue | HeaderMap>(value: T) => deep(value as JsonValue) as T,
  };
}
