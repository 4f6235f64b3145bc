import protobuf from 'protobufjs/minimal.js';
import generatedRoot from '@opentelemetry/otlp-transformer/build/src/generated/root.js';
import { isRecord } from '@tapline/shared/lean';
import { zodOnFirstUse } from '../zod-on-first-use.js';
import { type ExportTraceRequest, exportTraceRequest } from './request.js';

/**
 * OTLP/HTTP bodies and answers. Protobuf goes through the static protobufjs module generated from
 * the official opentelemetry-proto definitions that `@opentelemetry/otlp-transformer` 0.208 ships
 * (later versions dropped it); its typings declare only a protobufjs Root, so the two message
 * types used here are looked up and checked once.
 */
interface MessageType {
  decode(bytes: Uint8Array): object;
  encode(message: object): { finish(): Uint8Array };
  toObject(
    message: object,
    options: { longs: StringConstructor; bytes: ArrayConstructor; enums: NumberConstructor },
  ): unknown;
}

/** Generated message types are classes (functions) with static codec methods. */
const isMessageType = (value: unknown): value is MessageType =>
  typeof value === 'function' &&
  ['decode', 'encode', 'toObject'].every((name) => typeof Reflect.get(value, name) === 'function');

function messageType(root: unknown, path: string): MessageType {
  let node: unknown = root;
  for (const part of path.split('.')) node = isRecord(node) ? node[part] : undefined;
  if (!isMessageType(node)) throw new Error(`the OTLP protobuf module has no message type ${path}`);
  return node;
}

// A static import (not a computed require), so the single-executable bundle (scripts/release) carries it.
const root: unknown = generatedRoot;
const TRACE_SERVICE = 'opentelemetry.proto.collector.trace.v1';
const requestType = messageType(root, `${TRACE_SERVICE}.ExportTraceServiceRequest`);
const responseType = messageType(root, `${TRACE_SERVICE}.ExportTraceServiceResponse`);

const parseJson = (text: string): unknown => JSON.parse(text);

export type OtlpEncoding = 'protobuf' | 'json';

/** The encoding a Content-Type names; null for any other type (a 415). */
export function encodingOf(contentType: string | undefined): OtlpEncoding | null {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  return null;
}

/** The request, or a message saying why it cannot be read (the route answers 400 with it). */
export async function decodeRequest(
  body: Uint8Array,
  encoding: OtlpEncoding,
): Promise<ExportTraceRequest | { readonly error: string }> {
  let value: unknown;
  try {
    value =
      encoding === 'protobuf'
        ? requestType.toObject(requestType.decode(body), { longs: String, bytes: Array, enums: Number })
        : parseJson(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch (error) {
    return {
      error: `the body is not an OTLP ExportTraceServiceRequest in ${encoding === 'json' ? 'JSON' : 'protobuf'}: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const parsed = (await exportTraceRequest()).safeParse(value);
  if (!parsed.success)
    return {
      error: `the body is not an OTLP ExportTraceServiceRequest: ${(await zodOnFirstUse()).prettifyError(parsed.error).split('\n').slice(0, 2).join(' ')}`,
    };
  return parsed.data;
}

export interface PartialSuccess {
  readonly rejectedSpans: number;
  readonly errorMessage: string;
}

/** `ExportTraceServiceResponse`; `partialSuccess` only when something was rejected or is worth saying. */
export function encodeResponse(encoding: OtlpEncoding, partial: PartialSuccess | null): Uint8Array | string {
  if (encoding === 'json')
    return JSON.stringify(
      partial
        ? { partialSuccess: { rejectedSpans: String(partial.rejectedSpans), errorMessage: partial.errorMessage } }
        : {},
    );
  return responseType.encode(partial ? { partialSuccess: partial } : {}).finish();
}

/**
 * `google.rpc.Status {code, message}`, the body of an OTLP error answer. Not part of the module
 * above; it is two fields, written with protobufjs' own writer rather than a second schema.
 */
export function encodeStatus(code: number, message: string): Uint8Array {
  return protobuf.Writer.create().uint32(8).int32(code).uint32(18).string(message).finish();
}
