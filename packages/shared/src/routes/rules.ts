import { normalizeTemplate, templateProblem } from './template.js';

/**
 * Rules a source's owner sets (docs/statistics.md "Rules"). Pure: the daemon checks what is
 * posted with it, the CLI checks what is typed before sending it.
 */

/**
 * The paths a template matches, as one string: its parameters' names erased. Two rules of one
 * shape (`/products/{slug}`, `/products/{id}`) match exactly the same paths, so only one may exist.
 */
export const templateShape = (template: string): string => template.replace(/\{[^}]*\}/g, '{}');

/** A rule as typed, normalised to OpenAPI's spelling, or why it cannot be one. */
export function parseRule(raw: string): { readonly template: string } | { readonly problem: string } {
  const typed = raw.trim();
  const template = normalizeTemplate(typed);
  if (template !== undefined) return { template };
  return { problem: templateProblem(typed) ?? 'not a route template (at most 2,048 characters, beginning with /)' };
}

/** The existing rule a new one would match the same paths as, if any. */
export const conflictingRule = <R extends { readonly template: string }>(
  template: string,
  rules: readonly R[],
): R | undefined => rules.find((rule) => templateShape(rule.template) === templateShape(template));
