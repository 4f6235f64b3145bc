import type { JsonValue } from '@tapline/shared';
import { hasFormat, needsInt64, type StringFormat, stringFormat } from './formats.js';

/**
 * What every sample seen at one place of a body had in common (docs/api-contract.md, "Schemas").
 * Its size grows with the body's structure, never with the number of samples: distinct values are
 * kept only up to ENUM_LIMIT + 1, properties up to MAX_PROPERTIES, nesting up to MAX_DEPTH.
 */
export interface Shape {
  /** Samples seen here (for a property: the objects that had it). */
  count: number;
  nulls: number;
  booleans: number;
  integers: number;
  int64: boolean;
  /** Numbers with a fraction; with integers the type is `number`. */
  fractions: number;
  strings: number;
  /** The one format every string had; null once two differed or one had none. */
  format: StringFormat | null | undefined;
  /** Distinct short strings and their counts; null once there were too many to be an enumeration. */
  values: Map<string, number> | null;
  arrays: number;
  items: Shape | undefined;
  objects: number;
  properties: Map<string, Shape>;
  /** Values of properties past MAX_PROPERTIES (a map keyed by ids): `additionalProperties`. */
  extra: Shape | undefined;
}

export const ENUM_LIMIT = 8;
/** Samples an enumeration needs, and how many times each value must recur on average. */
export const ENUM_MIN_SAMPLES = 20;
const ENUM_RECURRENCE = 4;
const ENUM_VALUE_LENGTH = 64;
export const MAX_PROPERTIES = 200;
const MAX_DEPTH = 32;

export const emptyShape = (): Shape => ({
  count: 0,
  nulls: 0,
  booleans: 0,
  integers: 0,
  int64: false,
  fractions: 0,
  strings: 0,
  format: undefined,
  values: new Map(),
  arrays: 0,
  items: undefined,
  objects: 0,
  properties: new Map(),
  extra: undefined,
});

function observeString(shape: Shape, value: string): void {
  shape.strings += 1;
  // Once two samples differed the field has no format whatever comes: the regexes are not run again.
  // While one is kept, only its own test runs (hasFormat).
  if (shape.format === undefined) shape.format = stringFormat(value) ?? null;
  else if (shape.format !== null && !hasFormat(value, shape.format)) shape.format = null;
  if (shape.values === null) return;
  if (value.length > ENUM_VALUE_LENGTH) shape.values = null;
  else {
    shape.values.set(value, (shape.values.get(value) ?? 0) + 1);
    if (shape.values.size > ENUM_LIMIT) shape.values = null;
  }
}

function observeObject(shape: Shape, value: { [key: string]: JsonValue }, depth: number): void {
  shape.objects += 1;
  // `for…in`, not Object.entries: no array of pairs per object of every body (a parsed JSON
  // object has only its own keys, met in the same order).
  for (const key in value) {
    const child = value[key] ?? null;
    let property = shape.properties.get(key);
    if (!property && shape.properties.size >= MAX_PROPERTIES) {
      shape.extra ??= emptyShape();
      observe(shape.extra, child, depth + 1);
      continue;
    }
    if (!property) shape.properties.set(key, (property = emptyShape()));
    observe(property, child, depth + 1);
  }
}

/** Adds one sample. */
export function observe(shape: Shape, value: JsonValue, depth = 0): void {
  shape.count += 1;
  if (depth > MAX_DEPTH) return;
  if (value === null) shape.nulls += 1;
  else if (typeof value === 'boolean') shape.booleans += 1;
  else if (typeof value === 'number') {
    if (Number.isInteger(value)) {
      shape.integers += 1;
      if (needsInt64(value)) shape.int64 = true;
    } else shape.fractions += 1;
  } else if (typeof value === 'string') observeString(shape, value);
  else if (Array.isArray(value)) {
    shape.arrays += 1;
    shape.items ??= emptyShape();
    for (const item of value) observe(shape.items, item, depth + 1);
  } else observeObject(shape, value, depth);
}

export type JsonSchema = { [key: string]: JsonValue };

/** An enumeration only when a few values recur over many samples (`status: active|paused`). */
function enumOf(shape: Shape): string[] | undefined {
  if (!shape.values || shape.format || shape.strings < ENUM_MIN_SAMPLES) return undefined;
  if (shape.values.size * ENUM_RECURRENCE > shape.strings) return undefined;
  return [...shape.values.keys()].sort();
}

/** The type names of a shape, in JSON Schema's order of listing. */
function typesOf(shape: Shape): string[] {
  const types: string[] = [];
  if (shape.arrays) types.push('array');
  if (shape.booleans) types.push('boolean');
  if (shape.fractions) types.push('number');
  else if (shape.integers) types.push('integer');
  if (shape.objects) types.push('object');
  if (shape.strings) types.push('string');
  if (shape.nulls) types.push('null');
  return types;
}

/**
 * The JSON Schema 2020-12 (OpenAPI 3.1) of a shape: the union of the types seen (`null` one of
 * them), each type's keywords side by side; `required` lists the properties every object had.
 * Keys are written sorted, so the same samples give the same text.
 */
export function schemaOf(shape: Shape): JsonSchema {
  const types = typesOf(shape);
  if (types.length === 0) return {};
  const schema: JsonSchema = { type: types.length === 1 ? (types[0] ?? 'null') : types };
  if (shape.strings && shape.format) schema.format = shape.format;
  else if (shape.integers && !shape.fractions && shape.int64) schema.format = 'int64';
  const values = shape.strings ? enumOf(shape) : undefined;
  if (values) schema.enum = shape.nulls ? [...values, null] : values;
  if (shape.arrays) schema.items = shape.items && shape.items.count > 0 ? schemaOf(shape.items) : {};
  if (shape.objects) {
    const names = [...shape.properties.keys()].sort();
    const properties: JsonSchema = {};
    for (const name of names) properties[name] = schemaOf(shape.properties.get(name) ?? emptyShape());
    schema.properties = properties;
    const required = names.filter((name) => (shape.properties.get(name)?.count ?? 0) === shape.objects);
    if (required.length > 0) schema.required = required;
    if (shape.extra) schema.additionalProperties = schemaOf(shape.extra);
  }
  return schema;
}
