/** Deeper JSON would overflow the stack of the recursive validators and the redactor (a 500). */
export const MAX_JSON_DEPTH = 256;
export const TOO_DEEP = `JSON in the request body is nested deeper than ${MAX_JSON_DEPTH} levels`;

/**
 * Recursion stops at `max` levels, so a hostile body cannot overflow this check either; it
 * allocates nothing, which mattered for batches of a thousand records.
 */
export function deeperThan(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (max === 0) return true;
  // Reflect.get reads a member of any object without a copy (Object.values would allocate).
  for (const key in value) if (deeperThan(Reflect.get(value, key), max - 1)) return true;
  return false;
}
