/**
 * Route templates (docs/statistics.md "Route templates"): one spelling, OpenAPI's `{name}`.
 * Pure and stateless: the daemon calls it at ingest, the CLI to normalise what a user types.
 */

/** Where an entry's template came from, strongest first (sent > rule > inferred). */
export const ROUTE_ORIGINS = ['sent', 'rule', 'inferred'] as const;
export type RouteOrigin = (typeof ROUTE_ORIGINS)[number];

export interface ResolvedRoute {
  readonly template: string;
  readonly origin: RouteOrigin;
}

/** Longest template kept; a longer one sent by a client is not a template but a path. */
export const MAX_TEMPLATE_LENGTH = 2048;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NUMBER = /^\d+$/;
const HEX = /^[0-9a-f]{16,}$/i;
const TOKEN = /^[A-Za-z0-9_-]{16,}$/;
const DATE = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})?)?$/;
const EMAIL = /^[^@\s/]+(?:@|%40)[^@\s/.]+(?:\.[^@\s/.]+)+$/i;
/** A file name: a stem and a short extension; the stem alone can be a parameter (`{id}.png`). */
const FILE = /^(.+)\.([A-Za-z][A-Za-z0-9]{0,4})$/;
/** Path prefixes and versions: never a parameter, and never the name of one. */
const RESERVED = /^(?:api|apis|rest|graphql|rpc|v\d+(?:\.\d+)*|latest|public|internal|admin)$/i;

/** A path prefix or a version (`api`, `v1`): kept constant by inference, and never offered as a value by suggestions. */
export const isReservedSegment = (segment: string): boolean => RESERVED.test(segment);

type ParamKind = 'id' | 'date' | 'email';

/**
 * What kind of value a segment is, or undefined for a constant. Tokens must hold a digit and a
 * letter (a long word is a constant), and either mixed case or no hyphen: `best-laptops-for-2024`
 * is a slug and stays; `V1StGXR8_Z5jdHi6B-myT` (a nanoid) and `cus_NffrFeUfNV2Hib` are values.
 */
export function segmentKind(segment: string): ParamKind | undefined {
  if (segment === '' || RESERVED.test(segment)) return undefined;
  if (NUMBER.test(segment) || UUID.test(segment)) return 'id';
  if (DATE.test(segment)) return 'date';
  if (EMAIL.test(segment)) return 'email';
  if (HEX.test(segment) && /\d/.test(segment)) return 'id';
  if (TOKEN.test(segment) && /\d/.test(segment) && /[A-Za-z]/.test(segment)) {
    const mixedCase = /[a-z]/.test(segment) && /[A-Z]/.test(segment);
    if (mixedCase || !segment.includes('-')) return 'id';
  }
  return undefined;
}

/** `line-items` → `lineItem`, `categories` → `category`; undefined when nothing usable is left. */
function singular(word: string): string | undefined {
  const parts = word
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  if (parts.length === 0 || !/^[a-z]/.test(parts[0] ?? '')) return undefined;
  const last = parts.length - 1;
  const tail = parts[last] ?? '';
  if (/ies$/.test(tail) && tail.length > 4) parts[last] = `${tail.slice(0, -3)}y`;
  else if (/(?:ss|us|x|ch|sh)es$/.test(tail)) parts[last] = tail.slice(0, -2);
  else if (/[^s]s$/.test(tail) && !/(?:us|is)$/.test(tail)) parts[last] = tail.slice(0, -1);
  return parts.map((p, i) => (i === 0 ? p : `${p[0]?.toUpperCase() ?? ''}${p.slice(1)}`)).join('');
}

interface Slot {
  readonly kind: ParamKind;
  readonly parent: string | undefined;
  readonly suffix: string;
}

/**
 * The template inference gives a path: each segment that is a value becomes a parameter. A
 * template with one parameter calls it by its kind (`/users/{id}`); with several, each id is
 * named after the constant before it (`/users/{userId}/orders/{orderId}`), so names never repeat.
 * A trailing slash is dropped, as normalizeTemplate drops it.
 */
export function inferTemplate(pathname: string): string {
  const path = stripQuery(pathname);
  const segments = splitPath(path);
  const parts: (string | Slot)[] = [];
  let parent: string | undefined;
  for (const segment of segments) {
    const direct = segmentKind(segment);
    const file = direct ? undefined : FILE.exec(segment);
    const kind = direct ?? (file?.[1] ? fileKind(file[1]) : undefined);
    if (kind) {
      parts.push({ kind, parent, suffix: direct || !file ? '' : `.${file[2] ?? ''}` });
      parent = undefined;
    } else {
      parts.push(segment);
      parent = RESERVED.test(segment) ? undefined : segment;
    }
  }
  const slots = parts.filter((p): p is Slot => typeof p !== 'string');
  const used = new Set<string>();
  const named = parts.map((part) => {
    if (typeof part === 'string') return part;
    const base = slots.length === 1 || part.kind !== 'id' ? part.kind : nameFromParent(part.parent);
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}${n}`;
    used.add(name);
    return `{${name}}${part.suffix}`;
  });
  return joinPath(named);
}

/** Only ids become `{id}.png`: a dated or mailed file name is rare enough to stay a constant. */
const fileKind = (stem: string): ParamKind | undefined => (segmentKind(stem) === 'id' ? 'id' : undefined);

function nameFromParent(parent: string | undefined): string {
  const word = parent === undefined ? undefined : singular(parent);
  return word ? `${word}Id` : 'id';
}

const stripQuery = (path: string): string => path.replace(/[?#].*$/s, '');

function splitPath(path: string): string[] {
  const segments = path.split('/').slice(1);
  // `/users/` and `/users` are one route; `//` inside a path is kept as an empty segment.
  if (segments.length > 0 && segments[segments.length - 1] === '') segments.pop();
  return segments;
}

const joinPath = (segments: readonly string[]): string => `/${segments.join('/')}`;

/**
 * A template as a client or a user spells it, in OpenAPI's spelling: `:id`, `:id?`, `:id(\\d+)`,
 * `<id>`, `<int:id>`, `{id:int}` and `*` all become `{name}`; a trailing slash and repeated slashes
 * go. Undefined for what cannot be a template (not beginning with `/`, too long, unbalanced braces).
 */
export function normalizeTemplate(raw: string): string | undefined {
  const path = stripQuery(raw.trim()).replace(/\/{2,}/g, '/');
  if (!path.startsWith('/') || path.length > MAX_TEMPLATE_LENGTH) return undefined;
  let wildcards = 0;
  const segments = splitPath(path).map((segment) =>
    segment
      .replace(/^:([A-Za-z_][A-Za-z0-9_]*)(?:\([^)]*\))?[?*+]?$/, '{$1}')
      .replace(/^<(?:[A-Za-z_]+:)?([A-Za-z_][A-Za-z0-9_]*)>$/, '{$1}')
      .replace(/^\{([A-Za-z_][A-Za-z0-9_]*)(?::[^}]*)?\}$/, '{$1}')
      .replace(/^\*$/, () => `{wildcard${++wildcards > 1 ? wildcards : ''}}`),
  );
  const template = joinPath(segments);
  return templateProblem(template) === undefined ? template : undefined;
}

/** Why a string is not a well-formed template (for rules a user types), or undefined when it is. */
export function templateProblem(template: string): string | undefined {
  if (!template.startsWith('/')) return 'a template begins with /';
  const names = new Set<string>();
  for (const segment of splitPath(template)) {
    let depth = 0;
    for (const ch of segment) {
      depth += ch === '{' ? 1 : ch === '}' ? -1 : 0;
      if (depth < 0 || depth > 1) return `unbalanced braces in "${segment}"`;
    }
    if (depth !== 0) return `unbalanced braces in "${segment}"`;
    for (const [, name] of segment.matchAll(/\{([^}]*)\}/g)) {
      if (!name || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return `"{${name ?? ''}}" is not a parameter name`;
      if (names.has(name)) return `the parameter {${name}} appears twice`;
      names.add(name);
    }
  }
  return undefined;
}

/** A segment pattern of a template: the literal parts exact, each `{name}` one or more characters. */
function segmentPattern(segment: string): RegExp {
  const source = segment
    .split(/(\{[^}]*\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

/** True when the template matches the path (segment by segment; a trailing slash ignored). */
export function templateMatches(template: string, pathname: string): boolean {
  const want = splitPath(template);
  const have = splitPath(stripQuery(pathname));
  return want.length === have.length && want.every((segment, i) => segmentPattern(segment).test(have[i] ?? ''));
}

/** How literal a template is: its constant characters, so `/users/me` beats `/users/{id}`. */
const literalWeight = (template: string): number => template.replace(/\{[^}]*\}/g, '').length;

/**
 * The template an entry belongs to, first that applies: the client's (normalised), the source's
 * rules (the most literal that matches), inference. A sent value that is not a template falls
 * through to the rules, as if none had been sent.
 */
export function resolveRoute(
  pathname: string,
  sent: string | null | undefined,
  rules: readonly string[] = [],
): ResolvedRoute {
  const normalized = sent ? normalizeTemplate(sent) : undefined;
  if (normalized) return { template: normalized, origin: 'sent' };
  let best: string | undefined;
  for (const rule of rules) {
    if (templateMatches(rule, pathname) && (best === undefined || literalWeight(rule) > literalWeight(best)))
      best = rule;
  }
  if (best !== undefined) return { template: best, origin: 'rule' };
  return { template: inferTemplate(pathname), origin: 'inferred' };
}
