import type { RouteSuggestion } from '../schemas/route-rules.js';
import { conflictingRule } from './rules.js';
import { isReservedSegment, resolveRoute } from './template.js';

/** Stored entries of one path of a source. */
export interface PathCount {
  readonly pathname: string;
  readonly entries: number;
}

/** Fewer distinct siblings than this are more likely resources (`/users/me`, `/users/search`) than values. */
export const MIN_SIBLINGS = 5;
const MAX_SUGGESTIONS = 20;
const EXAMPLES = 3;

const isConstant = (segment: string) => !segment.includes('{');

/** `{slug}` when the values read as slugs (most hyphenated), else `{name}`; numbered past names the template has. */
function parameterName(values: readonly string[], taken: readonly string[]): string {
  const base = values.filter((v) => v.includes('-')).length * 2 >= values.length ? 'slug' : 'name';
  const used = new Set(taken.flatMap((s) => [...s.matchAll(/\{([^}]*)\}/g)].map((m) => m[1])));
  let name = base;
  for (let n = 2; used.has(name); n++) name = `${base}${n}`;
  return name;
}

/**
 * Rules worth adding (docs/statistics.md "Suggestions"): where, among the templates the source's
 * paths get now, one constant segment under a constant parent takes at least MIN_SIBLINGS
 * distinct values with the rest of the template the same (`/products/blue-shirt`,
 * `/products/red-hat`, …), the template with that segment a parameter. Paths a rule already
 * files, reserved segments (`api`, `v1`) and a segment with no constant parent are never offered.
 */
export function suggestRules(paths: readonly PathCount[], rules: readonly string[]): RouteSuggestion[] {
  const groups = new Map<string, { prefix: string[]; suffix: string[]; seen: Map<string, number> }>();
  for (const { pathname, entries } of paths) {
    const route = resolveRoute(pathname, null, rules);
    if (route.origin === 'rule') continue;
    const segments = route.template.split('/').slice(1);
    for (let i = 1; i < segments.length; i++) {
      const value = segments[i] ?? '';
      const parent = segments[i - 1] ?? '';
      if (
        value === '' ||
        !isConstant(value) ||
        isReservedSegment(value) ||
        !isConstant(parent) ||
        parent === '' ||
        isReservedSegment(parent)
      )
        continue;
      const prefix = segments.slice(0, i);
      const suffix = segments.slice(i + 1);
      const key = `${prefix.join('/')}\u0000${suffix.join('/')}`;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { prefix, suffix, seen: new Map() }));
      group.seen.set(value, (group.seen.get(value) ?? 0) + entries);
    }
  }
  const ruled = rules.map((template) => ({ template }));
  const suggestions: RouteSuggestion[] = [];
  for (const { prefix, suffix, seen } of groups.values()) {
    if (seen.size < MIN_SIBLINGS) continue;
    const values = [...seen.keys()];
    const name = parameterName(values, [...prefix, ...suffix]);
    const template = `/${[...prefix, `{${name}}`, ...suffix].join('/')}`;
    if (conflictingRule(template, ruled)) continue;
    const counts = [...seen.values()];
    suggestions.push({
      template,
      parent: `/${prefix.join('/')}/`,
      values: seen.size,
      minSeen: Math.min(...counts),
      maxSeen: Math.max(...counts),
      entries: counts.reduce((a, b) => a + b, 0),
      examples: [...seen]
        .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
        .slice(0, EXAMPLES)
        .map(([value]) => value),
    });
  }
  return suggestions
    .sort((a, b) => b.values - a.values || (a.template < b.template ? -1 : 1))
    .slice(0, MAX_SUGGESTIONS);
}
