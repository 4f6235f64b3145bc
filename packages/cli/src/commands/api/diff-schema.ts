import { isRecord } from '@tapline/shared';

type Schema = Record<string, unknown>;

/** One difference between two OpenAPI documents, and whether it breaks a client written for the old one. */
export interface ApiChange {
  readonly operation: string;
  /** `request body /items/-/id`, `response 200 body /name`, `query limit`. */
  readonly where: string;
  readonly change: string;
  readonly breaking: boolean;
}

/**
 * Which way data flows: a client sends requests (the server must keep accepting what it accepted)
 * and reads responses (the server must keep sending only what it sent). The same change breaks
 * one direction and not the other, as in oasdiff's rules.
 */
export type Direction = 'request' | 'response';

/** The types a schema allows; `number` allows integers, and 3.0's `nullable` adds null. Undefined: any. */
export function typesOf(schema: Schema): Set<string> | undefined {
  const raw = schema.type;
  const list =
    typeof raw === 'string'
      ? [raw]
      : Array.isArray(raw)
        ? raw.filter((t): t is string => typeof t === 'string')
        : undefined;
  if (!list) return undefined;
  const types = new Set(list);
  if (schema.nullable === true) types.add('null');
  if (types.has('number')) types.add('integer');
  return types;
}

const covers = (outer: Set<string> | undefined, inner: Set<string> | undefined) =>
  outer === undefined || (inner !== undefined && [...inner].every((t) => outer.has(t)));
const typeText = (types: Set<string> | undefined) =>
  types
    ? [...types]
        .filter((t) => !(t === 'integer' && types.has('number')))
        .sort()
        .join('|')
    : 'any';

/** Properties and required names, with allOf's members folded in (how most specs compose objects). */
function objectOf(schema: Schema): { properties: Map<string, Schema>; required: Set<string> } {
  const properties = new Map<string, Schema>();
  const required = new Set<string>();
  const visit = (s: Schema, depth: number) => {
    if (depth > 8) return;
    if (isRecord(s.properties))
      for (const [k, v] of Object.entries(s.properties)) if (isRecord(v)) properties.set(k, v);
    if (Array.isArray(s.required)) for (const r of s.required) if (typeof r === 'string') required.add(r);
    if (Array.isArray(s.allOf)) for (const member of s.allOf) if (isRecord(member)) visit(member, depth + 1);
  };
  visit(schema, 0);
  return { properties, required };
}

const enumOf = (schema: Schema) => (Array.isArray(schema.enum) ? schema.enum.map((v) => JSON.stringify(v)) : undefined);

/**
 * The changes from `before` to `after` of one schema, walking properties and items. A dereferenced
 * document may be cyclic: each pair of schemas is compared once.
 */
export function diffSchemas(
  before: Schema,
  after: Schema,
  direction: Direction,
  at: { operation: string; where: string },
  seen = new WeakMap<Schema, WeakSet<Schema>>(),
  pointer = '',
): ApiChange[] {
  const pairs = seen.get(before) ?? new WeakSet<Schema>();
  if (pairs.has(after)) return [];
  pairs.add(after);
  seen.set(before, pairs);
  const changes: ApiChange[] = [];
  const place = `${at.where}${pointer ? ` ${pointer}` : ''}`;
  const add = (change: string, breaking: boolean) =>
    changes.push({ operation: at.operation, where: place, change, breaking });

  const oldTypes = typesOf(before);
  const newTypes = typesOf(after);
  if (typeText(oldTypes) !== typeText(newTypes)) {
    // A request may no longer send what it did (narrowed); a response may now send what no client expects (widened).
    const breaking = direction === 'request' ? !covers(newTypes, oldTypes) : !covers(oldTypes, newTypes);
    add(`type ${typeText(oldTypes)} → ${typeText(newTypes)}`, breaking);
  }
  const oldEnum = enumOf(before);
  const newEnum = enumOf(after);
  if (oldEnum && newEnum) {
    const removed = oldEnum.filter((v) => !newEnum.includes(v));
    const added = newEnum.filter((v) => !oldEnum.includes(v));
    if (removed.length) add(`enum values removed: ${removed.join(', ')}`, direction === 'request');
    if (added.length) add(`enum values added: ${added.join(', ')}`, direction === 'response');
  } else if (!oldEnum && newEnum) add(`enum added: ${newEnum.join(', ')}`, direction === 'request');

  const oldObject = objectOf(before);
  const newObject = objectOf(after);
  const names = [...new Set([...oldObject.properties.keys(), ...newObject.properties.keys()])].sort();
  for (const name of names) {
    const path = `${pointer}/${name}`;
    const o = oldObject.properties.get(name);
    const n = newObject.properties.get(name);
    const wasRequired = oldObject.required.has(name);
    const isRequired = newObject.required.has(name);
    const propertyAt = { operation: at.operation, where: `${at.where} ${path}` };
    if (o && !n) changes.push({ ...propertyAt, change: 'property removed', breaking: direction === 'response' });
    else if (!o && n)
      changes.push({
        ...propertyAt,
        change: `property added${isRequired ? ', required' : ''}`,
        breaking: direction === 'request' && isRequired,
      });
    else if (o && n) {
      if (wasRequired && !isRequired)
        changes.push({ ...propertyAt, change: 'property became optional', breaking: direction === 'response' });
      if (!wasRequired && isRequired)
        changes.push({ ...propertyAt, change: 'property became required', breaking: direction === 'request' });
      changes.push(...diffSchemas(o, n, direction, at, seen, path));
    }
  }
  if (isRecord(before.items) && isRecord(after.items))
    changes.push(...diffSchemas(before.items, after.items, direction, at, seen, `${pointer}/-`));
  return changes;
}
