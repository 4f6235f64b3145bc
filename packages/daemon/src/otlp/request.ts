import { isRecord } from '@tapline/shared/lean';
import type { z } from 'zod';
import { schemaOnFirstUse, type Zod } from '../zod-on-first-use.js';

export interface KeyValue {
  readonly key: string;
  readonly value?: unknown;
}

/**
 * The part of an OTLP `ExportTraceServiceRequest` Tapline reads, in the shape both encodings
 * reach after decoding: OTLP/JSON as sent (lowerCamelCase names, ids in hex, 64-bit integers as
 * strings or numbers), and protobuf through protobufjs' `toObject` (ids as byte arrays). Every
 * field is optional, as in proto3; unknown fields are ignored. Built by the first OTLP request.
 */
function otlpSchemas(z: Zod) {
  const Id = z
    .union([z.string(), z.array(z.number().int().min(0).max(255))])
    .transform((v) => (typeof v === 'string' ? v.toLowerCase() : Buffer.from(v).toString('hex')));
  const Nanos = z.union([z.string().regex(/^\d+$/), z.number().int().nonnegative()]).transform((v) => BigInt(v));
  const Attributes = z.array(z.object({ key: z.string(), value: z.unknown().optional() })).optional();

  const Event = z.object({ name: z.string().optional(), timeUnixNano: Nanos.optional(), attributes: Attributes });

  const Span = z.object({
    traceId: Id.optional(),
    spanId: Id.optional(),
    parentSpanId: Id.optional(),
    name: z.string().optional(),
    /** SPAN_KIND_SERVER is 2; JSON may spell the enum by name. */
    kind: z.union([z.number().int(), z.string()]).optional(),
    startTimeUnixNano: Nanos.optional(),
    endTimeUnixNano: Nanos.optional(),
    attributes: Attributes,
    events: z.array(Event).optional(),
  });

  const ExportTraceRequest = z.object({
    resourceSpans: z
      .array(
        z.object({
          resource: z.object({ attributes: Attributes }).optional(),
          scopeSpans: z.array(z.object({ spans: z.array(Span).optional() })).optional(),
        }),
      )
      .optional(),
  });
  return { Span, ExportTraceRequest };
}
type OtlpSchemas = ReturnType<typeof otlpSchemas>;
export type OtlpSpan = z.output<OtlpSchemas['Span']>;
export type ExportTraceRequest = z.output<OtlpSchemas['ExportTraceRequest']>;

/** The request's schema, built by the first OTLP request (docs/decisions.md §20.26). */
export const exportTraceRequest = schemaOnFirstUse((z) => otlpSchemas(z).ExportTraceRequest);

/** An OTLP AnyValue as a plain value: strings, numbers, booleans, arrays; other kinds as undefined. */

export function anyValue(v: unknown): unknown {
  if (!isRecord(v)) return undefined;
  if (typeof v.stringValue === 'string') return v.stringValue;
  if (typeof v.boolValue === 'boolean') return v.boolValue;
  if (v.intValue !== undefined && v.intValue !== null) return Number(v.intValue);
  if (typeof v.doubleValue === 'number') return v.doubleValue;
  if (isRecord(v.arrayValue) && Array.isArray(v.arrayValue.values)) return v.arrayValue.values.map(anyValue);
  return undefined;
}

/** Attributes as a map of plain values; a repeated key keeps its last value. */
export const attributeMap = (attributes: readonly KeyValue[] | undefined): Map<string, unknown> =>
  new Map((attributes ?? []).map((a) => [a.key, anyValue(a.value)]));
