import type { JsonValue } from '@tapline/shared';

/**
 * Whether `JSON.stringify(value)` is certainly longer than `limit` characters, found without
 * writing it: the walk counts the text as if no character needed an escape (escapes only lengthen
 * it) and stops as soon as it has passed `limit`. False means "perhaps not": the caller measures.
 * Inference asks this of every body until one is short enough to be the example, and an operation
 * whose bodies are all long (a list endpoint's) had each of them written out only to be measured.
 */
export function jsonLongerThan(value: JsonValue, limit: number): boolean {
  return atLeast(value, limit) > limit;
}

/** A lower bound of the JSON text's length; past `budget`, any number past it. */
function atLeast(value: JsonValue, budget: number): number {
  if (value === null) return 4;
  switch (typeof value) {
    case 'boolean':
      return value ? 4 : 5;
    case 'number':
      return 1;
    case 'string':
      return value.length + 2;
    default:
      break;
  }
  // A container is two characters at least: a nesting deeper than the budget is not walked down.
  let used = 2;
  if (used > budget) return used;
  let members = 0;
  if (Array.isArray(value)) {
    for (const item of value) {
      used += (members++ > 0 ? 1 : 0) + atLeast(item, budget - used);
      if (used > budget) return used;
    }
    return used;
  }
  for (const key in value) {
    const item = value[key];
    // JSON.stringify leaves out a member whose value is undefined (never one parsed from JSON).
    if (item === undefined) continue;
    used += (members++ > 0 ? 1 : 0) + key.length + 3 + atLeast(item, budget - used);
    if (used > budget) return used;
  }
  return used;
}
