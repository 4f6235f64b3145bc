import { z } from 'zod';
import { HTTP_METHODS, RouteParam } from './http-traffic.js';
import { TimeParam } from './stats.js';

/**
 * The API contract inferred from stored traffic, and stored traffic checked against a spec
 * (docs/api-contract.md). `route` may repeat: the routes whose entries are read.
 */
const Routes = z
  .union([RouteParam, z.array(RouteParam)])
  .transform((v) => (Array.isArray(v) ? v : [v]))
  .meta({ anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] });

const windowFields = {
  since: TimeParam('since').optional(),
  until: TimeParam('until').optional(),
  route: Routes.optional(),
};

export const ApiInferQuery = z.object(windowFields);
export type ApiInferQuery = z.output<typeof ApiInferQuery>;

/** An OpenAPI document as JSON. */
export const OpenApiDocument = z.record(z.string(), z.json());
export type OpenApiDocument = z.output<typeof OpenApiDocument>;

export const MAX_CHECK_EXAMPLES = 50;

export const ApiCheckBody = z.object({
  /** The spec, with every `$ref` to another file already bundled in (the CLI does it with swagger-parser). */
  spec: OpenApiDocument,
  ...windowFields,
  maxExamples: z
    .number({ message: `maxExamples must be an integer from 1 to ${MAX_CHECK_EXAMPLES}` })
    .int(`maxExamples must be an integer from 1 to ${MAX_CHECK_EXAMPLES}`)
    .min(1, `maxExamples must be an integer from 1 to ${MAX_CHECK_EXAMPLES}`)
    .max(MAX_CHECK_EXAMPLES, `maxExamples must be an integer from 1 to ${MAX_CHECK_EXAMPLES}`)
    .optional(),
});
export type ApiCheckBody = z.output<typeof ApiCheckBody>;

export const VIOLATION_KINDS = [
  'undocumented-path',
  'undocumented-method',
  'undocumented-status',
  'request-body',
  'response-body',
  'query',
  'header',
  'path',
] as const;
export type ViolationKind = (typeof VIOLATION_KINDS)[number];

/** One way exchanges broke the spec, counted, with entry ids to open with `tapline traffic show`. */
export const ApiViolation = z.object({
  kind: z.enum(VIOLATION_KINDS),
  method: z.enum(HTTP_METHODS),
  /** The spec's path, or for an undocumented path the entry's route template. */
  path: z.string(),
  status: z.number().int().optional(),
  /** Where in the body or parameter: a JSON pointer (RFC 6901), `` for the whole value. */
  pointer: z.string(),
  /** The JSON Schema keyword broken (`required`, `type`, …), or the kind for an undocumented one. */
  rule: z.string(),
  message: z.string(),
  count: z.number().int(),
  examples: z.array(z.uuid()),
});
export type ApiViolation = z.infer<typeof ApiViolation>;

export const ApiCheckOperation = z.object({
  method: z.enum(HTTP_METHODS),
  path: z.string(),
  exchanges: z.number().int(),
  conforming: z.number().int(),
});
export type ApiCheckOperation = z.infer<typeof ApiCheckOperation>;

export const ApiCheckAnswer = z.object({
  /** Exchanges read, and those that broke no rule. */
  exchanges: z.number().int(),
  conforming: z.number().int(),
  operations: z.array(ApiCheckOperation),
  violations: z.array(ApiViolation),
});
export type ApiCheckAnswer = z.infer<typeof ApiCheckAnswer>;
