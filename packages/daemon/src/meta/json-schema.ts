import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

/** Zod's names for checks that are not JSON Schema formats; the `pattern` beside them says the same. */
const NOT_FORMATS = new Set(['starts_with', 'ends_with', 'includes', 'regex']);
const COMPOSITIONS = ['anyOf', 'oneOf', 'allOf'] as const;

/**
 * A schema whose own metadata gives a `type` is described by that metadata alone: it is the wire
 * form of a value whose parsing is a transform JSON Schema cannot express (`intQuery`'s digits
 * that must fit a range, a case-insensitive enum, a date or date-time). Shared schemas set it
 * with `.meta()` beside the parser, so the constraint is written once.
 */
function override({ zodSchema, jsonSchema }: { zodSchema: z.core.$ZodType; jsonSchema: JsonSchema }): void {
  const meta = z.globalRegistry.get(zodSchema);
  if (meta?.type !== undefined) {
    for (const key of COMPOSITIONS) if (!(key in meta)) delete jsonSchema[key];
  }
  if (typeof jsonSchema.format === 'string' && NOT_FORMATS.has(jsonSchema.format)) delete jsonSchema.format;
}

/** z.json()'s recursive definition, to give it a readable name once hoisted. */
const JSON_VALUE_DEF = Object.values(z.toJSONSchema(z.object({ v: z.json() })).$defs ?? {})[0];

/** A definition with its references to itself (at `ref`) made neutral, so two emissions compare equal. */
const canonical = (def: unknown, ref: string) => JSON.stringify(def).split(JSON.stringify(ref)).join('"#self"');
const JSON_VALUE = JSON_VALUE_DEF ? canonical(JSON_VALUE_DEF, '#/$defs/__schema0') : undefined;

function rewriteRefs(value: unknown, names: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, names));
  if (!value || typeof value !== 'object') return value;
  return rewriteMembers(value, names);
}

function rewriteMembers(schema: object, names: ReadonlyMap<string, string>): JsonSchema {
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => {
      const local = k === '$ref' && typeof v === 'string' ? /^#\/\$defs\/(.+)$/.exec(v)?.[1] : undefined;
      return [k, local !== undefined ? `#/components/schemas/${names.get(local) ?? local}` : rewriteRefs(v, names)];
    }),
  );
}

/**
 * Zod emits definitions it needs twice (z.json() refers to itself) as `$defs` local to each
 * schema, which an OpenAPI document cannot point into. They move to `components.schemas`, one
 * entry per distinct definition, and every reference follows them.
 */
function hoist(json: z.core.JSONSchema.JSONSchema, components: Record<string, JsonSchema>): JsonSchema {
  const { $defs, ...rest } = json;
  if (!$defs) return rest;
  const names = new Map<string, string>();
  for (const [key, def] of Object.entries($defs)) {
    const form = canonical(def, `#/$defs/${key}`);
    const known = Object.keys(components).find(
      (name) => canonical(components[name], `#/components/schemas/${name}`) === form,
    );
    names.set(key, known ?? (form === JSON_VALUE ? 'JsonValue' : `Schema${Object.keys(components).length}`));
  }
  for (const [key, def] of Object.entries($defs)) components[names.get(key) ?? key] ??= rewriteMembers(def, names);
  return rewriteMembers(rest, names);
}

/** `schema` as OpenAPI 3.1 (JSON Schema 2020-12), its shared definitions added to `components`. */
export function schemaOf(
  schema: z.ZodType,
  io: 'input' | 'output',
  components: Record<string, JsonSchema>,
): JsonSchema {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    override,
  });
  return hoist(json, components);
}
