import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { isRecord } from '@tapline/shared/lean';
import type { OpenApiDocument } from '@tapline/shared';
import { invalidField } from '../http/errors.js';

/** Where the spec is registered with Ajv; schemas are compiled by JSON pointer under it. */
const SPEC_ID = 'https://spec.tapline.invalid/openapi.json';

/** A failure of one value against its schema, as the check reports it. */
export interface SchemaFailure {
  readonly pointer: string;
  readonly rule: string;
  readonly message: string;
}

const INT32 = 2 ** 31;

/** OpenAPI's own formats, which JSON Schema does not define: checked where they say something, accepted otherwise. */
function addOpenApiFormats(ajv: Ajv): void {
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -INT32 && n < INT32 });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  for (const name of ['float', 'double']) ajv.addFormat(name, { type: 'number', validate: () => true });
  ajv.addFormat('byte', /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/);
  for (const name of ['binary', 'password']) ajv.addFormat(name, true);
}

function ajvFor(spec: OpenApiDocument, coerce: boolean): Ajv {
  // Unknown keywords of OpenAPI (example, xml, discriminator) are ignored, and Ajv writes no warning anywhere.
  const options: Options = {
    strict: false,
    allErrors: true,
    validateSchema: false,
    logger: false,
    code: { optimize: false },
    ...(coerce ? { coerceTypes: 'array' as const } : {}),
  };
  // OpenAPI 3.1's schemas are JSON Schema 2020-12; 3.0's a subset of draft 7 with `nullable`, which Ajv knows.
  const ajv =
    typeof spec.openapi === 'string' && spec.openapi.startsWith('3.1') ? new Ajv2020(options) : new Ajv(options);
  addFormats(ajv);
  addOpenApiFormats(ajv);
  ajv.addSchema(spec, SPEC_ID);
  return ajv;
}

/**
 * Compiled validators of one spec, one per schema location, compiled once before any exchange is
 * read: a schema that does not compile is a 400 naming `spec` rather than a failure mid-way.
 * Parameters are validated with type coercion (a query value is text); bodies without.
 */
export class SpecValidators {
  readonly #spec: OpenApiDocument;
  readonly #bodies: Ajv;
  readonly #parameters: Ajv;
  /**
   * By kind, then by pointer: the pointers are the spec operations' own strings, whose hash V8
   * keeps, where a key spelled `${kind} ${pointer}` was a new string to hash on every validation.
   */
  readonly #compiled = { body: new Map<string, ValidateFunction>(), parameter: new Map<string, ValidateFunction>() };
  /** Validators by schema text: false when a `$id` or an anchor may make two equal texts mean different things. */
  readonly #byText: Map<string, ValidateFunction> | false;

  constructor(spec: OpenApiDocument) {
    this.#spec = spec;
    this.#bodies = ajvFor(spec, false);
    this.#parameters = ajvFor(spec, true);
    this.#byText = /"\$(?:id|anchor|dynamicAnchor|dynamicRef|recursiveAnchor|recursiveRef)"/.test(JSON.stringify(spec))
      ? false
      : new Map();
  }

  prepare(pointer: string, kind: 'body' | 'parameter'): void {
    const compiled = this.#compiled[kind];
    if (compiled.has(pointer)) return;
    // An inferred document repeats its schemas (every operation's error body): 173 body schemas of
    // one had 21 texts, and compiling took 1.7 s of a check. Equal texts compile once: every
    // `$ref` in them resolves against the one base, the spec's, so they validate alike.
    const schema = this.#byText ? valueAt(this.#spec, pointer) : undefined;
    const text = schema !== undefined && `${kind} ${JSON.stringify(schema)}`;
    const same = text ? this.#byText && this.#byText.get(text) : undefined;
    if (same) {
      compiled.set(pointer, same);
      return;
    }
    const ajv = kind === 'body' ? this.#bodies : this.#parameters;
    try {
      const validate = ajv.compile({ $ref: `${SPEC_ID}#${pointer.split('/').map(encodeURIComponent).join('/')}` });
      compiled.set(pointer, validate);
      if (text && this.#byText) this.#byText.set(text, validate);
    } catch (error) {
      throw invalidField(
        'spec',
        `the schema at ${pointer} does not compile: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  /** The failures of `value` against the schema at `pointer` (prepared before); empty when it conforms. */
  validate(pointer: string, kind: 'body' | 'parameter', value: unknown): readonly SchemaFailure[] {
    const validate = this.#compiled[kind].get(pointer);
    if (!validate || validate(value)) return CONFORMS;
    return (validate.errors ?? []).filter((e) => !COMBINATOR_NOISE.has(e.keyword)).map(failureOf);
  }
}

/** The answer for a value that conforms, shared: most values do, and the caller only reads it. */
const CONFORMS: readonly SchemaFailure[] = Object.freeze([]);

/** The value at a JSON pointer of the spec (read as spec.ts's `follow` reads one), or undefined. */
function valueAt(spec: OpenApiDocument, pointer: string): unknown {
  let node: unknown = spec;
  try {
    for (const key of pointer.split('/').slice(1))
      node = isRecord(node) ? node[decodeURIComponent(key).replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  } catch {
    return undefined;
  }
  return node;
}

/** With allErrors, a failed `anyOf` also lists each branch's failure; its own line says enough with them. */
const COMBINATOR_NOISE = new Set(['if', 'then', 'else']);

function failureOf(error: ErrorObject): SchemaFailure {
  const params: Record<string, unknown> = error.params;
  const child =
    error.keyword === 'required'
      ? params.missingProperty
      : error.keyword === 'additionalProperties'
        ? params.additionalProperty
        : undefined;
  const pointer =
    typeof child === 'string'
      ? `${error.instancePath}/${child.replace(/~/g, '~0').replace(/\//g, '~1')}`
      : error.instancePath;
  return { pointer, rule: error.keyword, message: error.message ?? error.keyword };
}
