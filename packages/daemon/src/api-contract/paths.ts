/**
 * Route templates as OpenAPI paths. Two templates that differ only in their parameters' names
 * (`/users/{id}`, `/users/{userId}`) are one path to OpenAPI (redocly's no-identical-paths), so
 * they share a key, and the document names the path by the first of them in sorted order.
 */
export const pathKeyOf = (template: string): string => template.replace(/\{[^}/]*\}/g, '{}');

export const parameterNames = (template: string): string[] =>
  [...template.matchAll(/\{([^}/]+)\}/g)].map((m) => m[1] ?? '');

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A pattern that captures a template's parameters from a path, in order. */
export function templatePattern(template: string): RegExp {
  const parts = template.split(/\{[^}/]+\}/).map(escape);
  return new RegExp(`^${parts.join('([^/]+?)')}/?$`);
}

/** Recorded paths whose parameters are kept, per matcher (the check's PathIndex keeps as many). */
export const KEPT_PATHS = 10_000;

/**
 * A path test for a template: `/pets/{petId}` matches `/pets/42`. Compiled once per template; the
 * parameters of each recorded path are decoded and read (`read`) once: an app's paths recur (the
 * bench's 100,000 entries have 5,000), and each was split, matched, decoded and typed again for
 * every exchange.
 */
export class TemplateMatcher<T> {
  readonly #patterns = new Map<string, RegExp>();
  readonly #found = new Map<string, Map<string, readonly T[] | undefined>>();
  #kept = 0;

  constructor(readonly read: (value: string) => T) {}

  /** The parameter values, decoded and read, or undefined when the path does not fill the template. */
  values(template: string, pathname: string): readonly T[] | undefined {
    let found = this.#found.get(template);
    if (!found) this.#found.set(template, (found = new Map<string, readonly T[] | undefined>()));
    const kept = found.get(pathname);
    if (kept !== undefined || found.has(pathname)) return kept;
    if (this.#kept >= KEPT_PATHS) {
      for (const map of this.#found.values()) map.clear();
      this.#kept = 0;
    }
    const values = this.#match(template, pathname);
    found.set(pathname, values);
    this.#kept += 1;
    return values;
  }

  #match(template: string, pathname: string): T[] | undefined {
    let pattern = this.#patterns.get(template);
    if (!pattern) this.#patterns.set(template, (pattern = templatePattern(template)));
    const match = pattern.exec(pathname.split('?')[0] ?? '');
    if (!match) return undefined;
    return match.slice(1).map((value) => this.read(decodeSegment(value)));
  }
}

/** A path segment's value as the app read it; one that is not valid percent-encoding as it was sent. */
export function decodeSegment(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
