import { z } from 'zod';

/**
 * Bodies of the endpoints that speak other tools' formats. The daemon reads these formats with
 * their own libraries; these schemas describe them for the contract and the OpenAPI document.
 */
export const OtlpTraceRequest = z
  .object({ resourceSpans: z.array(z.looseObject({})).optional() })
  .meta({ description: 'An OTLP ExportTraceServiceRequest (opentelemetry-proto), as OTLP/JSON or protobuf' });

export const OtlpTraceResponse = z
  .object({ partialSuccess: z.object({ rejectedSpans: z.string(), errorMessage: z.string() }).optional() })
  .meta({ description: 'An OTLP ExportTraceServiceResponse, in the encoding of the request' });

export const HarDocument = z
  .object({ log: z.looseObject({ version: z.literal('1.2'), entries: z.array(z.looseObject({})) }) })
  .meta({ description: 'HAR 1.2' });
