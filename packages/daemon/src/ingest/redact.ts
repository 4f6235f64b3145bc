import { REDACTED, redactText, SECRET_HEADERS, secretKeyPattern } from '@tapline/shared/lean';
import type { HeaderMap, JsonValue } from '@tapline/shared';

export { REDACTED };

export interface Redactor {
  headers(headers: HeaderMap): HeaderMap;
  /** Query parameters whose names look secret. */
  query(query: HeaderMap): HeaderMap;
  /** Bodies: keys at any depth whose names look secret; a text body's JSON pairs, form fields and multipart parts (redactText). */
  values(value: JsonValue): JsonValue;
}

/**
 * Secrets are replaced before anything is stored, so neither the database nor any later reader
 * (list, stream, webhook) ever holds them. `extraKeys` adds names to both headers and keys.
 */
export interface RedactOptions {
  readonly enabled: boolean;
  readonly extraKeys: readonly string[];
}

/**
 * Copy on write over an object's members: the same object comes back when `change` changes
 * nothing, so clean values allocate nothing. Each member is changed exactly once (redoing the ones
 * before a change would double the work at every level above a deep secret). The copy is made by
 * Object.fromEntries, which keeps a `__proto__` key as data instead of setting the prototype.
 */
function mapMembers<V>(object: Record<string, V>, change: (key: string, value: V) => V): Record<string, V> {
  let index = 0;
  for (const key in object) {
    const value = object[key];
    const changed = value === undefined ? value : change(key, value);
    if (changed !== value && changed !== undefined) {
      const first = index;
      return Object.fromEntries(
        Object.entries(object).map(([k, v], i) => [k, i < first ? v : i === first ? changed : change(k, v)]),
      );
    }
    index += 1;
  }
  return object;
}

export function createRedactor(options: RedactOptions): Redactor {
  if (!options.enabled) return { headers: (h) => h, query: (q) => q, values: (v) => v };
  const extra = options.extraKeys.map((k) => k.trim().toLowerCase()).filter(Boolean);
  const keyPattern = secretKeyPattern(extra);
  const headerNames = new Set([...SECRET_HEADERS, ...extra]);
  const isSecretHeader = (name: string) => headerNames.has(name.toLowerCase()) || keyPattern.test(name);

  function deep(value: JsonValue): JsonValue {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) {
      let copy: JsonValue[] | undefined;
      value.forEach((item, i) => {
        const inner = deep(item);
        if (inner !== item) (copy ??= value.slice())[i] = inner;
      });
      return copy ?? value;
    }
    return mapMembers(value, (key, inner) => (keyPattern.test(key) ? REDACTED : deep(inner)));
  }

  return {
    headers: (headers) =>
      mapMembers(headers, (name, value) =>
        isSecretHeader(name) ? (Array.isArray(value) ? value.map(() => REDACTED) : REDACTED) : value,
      ),
    query: (query) => mapMembers(query, (name, value) => (keyPattern.test(name) ? REDACTED : value)),
    // Only a text body pays the scan; a string inside JSON is a value, never inspected (§6.1).
    values: (value) => (typeof value === 'string' ? redactText(value, keyPattern) : deep(value)),
  };
}
