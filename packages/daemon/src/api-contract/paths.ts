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

/** A path test for a template: `/pets/{petId}` matches `/pets/42`. Compiled once per template. */
export class TemplateMatcher {
  readonly #patterns = new Map<string, RegExp>();

  /** The decoded parameter values, or undefined when the path does not fill the template. */
  values(template: string, pathname: string): string[] | undefined {
    let pattern = this.#patterns.get(template);
    if (!pattern) this.#patterns.set(template, (pattern = templatePattern(template)));
    const match = pattern.exec(pathname.split('?')[0] ?? '');
    if (!match) return undefined;
    return match.slice(1).map(decodeSegment);
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
