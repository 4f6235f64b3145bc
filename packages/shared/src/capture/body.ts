import type { Transform } from 'node:stream';
import { TextDecoder } from 'node:util';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw, type Zlib } from 'node:zlib';
import { parseJson as parseJsonText } from '../json.js';
import { redactText } from '../redact/text.js';
import type { JsonValue } from '../schemas/http-traffic.js';
import { truncationMarker } from './truncation.js';

/** Text bodies are kept up to this many bytes by default (`--max-body` of the proxy). */
export const DEFAULT_MAX_BODY = 64 * 1024;

/**
 * Extra raw bytes a collector keeps past `maxBytes`: an encoded body is at most a little larger
 * than what it decodes to (gzip framing), so `maxBytes + slack` encoded bytes always decode to at
 * least the `maxBytes` a record shows.
 */
const COLLECT_SLACK = 1024;

/** Gathers the raw bytes of a streamed body, keeping only what a record can show, and counts all of them. */
export interface BodyCollector {
  push(chunk: Uint8Array | string, encoding?: BufferEncoding): void;
  /** Every byte seen, kept or not. */
  readonly size: number;
  /** The kept prefix; the whole body when `size` equals its length. */
  bytes(): Buffer;
}

export function createBodyCollector(maxBytes: number = DEFAULT_MAX_BODY): BodyCollector {
  const keep = maxBytes + COLLECT_SLACK;
  const chunks: Buffer[] = [];
  let kept = 0;
  let size = 0;
  return {
    push(chunk, encoding) {
      const buffer =
        typeof chunk === 'string'
          ? Buffer.from(chunk, encoding ?? 'utf8')
          : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      size += buffer.length;
      if (kept >= keep) return;
      const part = buffer.subarray(0, keep - kept);
      // Copy: the caller may reuse its buffer after the write returns.
      chunks.push(Buffer.from(part));
      kept += part.length;
    },
    get size() {
      return size;
    },
    bytes: () => Buffer.concat(chunks, kept),
  };
}

export interface BodyInput {
  /** The raw bytes as sent on the wire (a prefix of them when `totalBytes` is larger). */
  readonly body: Uint8Array;
  /** The whole body's size on the wire, when only a prefix was kept. */
  readonly totalBytes?: number;
  readonly contentType?: string | undefined;
  readonly contentEncoding?: string | undefined;
  /** Text is kept up to this many (decoded) bytes, then truncated with a marker. */
  readonly maxBytes?: number;
}

type Kind = 'json' | 'form' | 'text' | 'binary' | 'unknown';

const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json$/;
const TEXT_TYPE =
  /^(?:text\/.*|application\/(?:[\w.+-]*\+)?xml|image\/svg\+xml|application\/(?:javascript|ecmascript|x-javascript|graphql|x-ndjson|ndjson|x-yaml|yaml|toml|x-sh|sql|csv))$/;

function kindOf(mime: string): Kind {
  if (!mime) return 'unknown';
  if (JSON_TYPE.test(mime)) return 'json';
  if (mime === 'application/x-www-form-urlencoded') return 'form';
  if (TEXT_TYPE.test(mime)) return 'text';
  return 'binary';
}

const mimeOf = (contentType: string | undefined) => (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
const charsetOf = (contentType: string | undefined) =>
  /;\s*charset="?([\w.:-]+)"?/i.exec(contentType ?? '')?.[1]?.toLowerCase() ?? 'utf-8';

/** The record of a body that is never stored raw. */
export const describeBinary = (contentType: string | undefined, bytes: number, note = '') =>
  `[binary body: ${mimeOf(contentType) || 'unknown type'}, ${bytes} bytes${note}]`;

/**
 * What a traffic record holds for a body: JSON parsed, form fields as an object (so that the
 * daemon's key redaction reaches `password=`), text as a string of at most `maxBytes` then a
 * truncation marker (redacted before the cut: `cutText`), anything binary as a one-line
 * description. gzip, deflate and br are decoded for the record only. Empty bodies are `null`.
 * Never throws.
 */
export async function captureBody(input: BodyInput): Promise<JsonValue> {
  const settled = withoutText(input);
  if (settled) return settled.value;
  const maxBytes = input.maxBytes ?? DEFAULT_MAX_BODY;
  return fromDecoded(input, await decode(bufferOf(input.body), input.contentEncoding, maxBytes, isWhole(input)));
}

/**
 * `captureBody` without a promise, for a body with no content coding to undo (the usual case,
 * which a proxy meets on every request); `undefined` for one that must be decoded first.
 */
export function captureBodyNow(input: BodyInput): JsonValue | undefined {
  const settled = withoutText(input);
  if (settled) return settled.value;
  if (codingsOf(input.contentEncoding).length > 0) return undefined;
  return fromDecoded(input, { ok: true, data: bufferOf(input.body), complete: isWhole(input) });
}

const wireBytesOf = (input: BodyInput) => Math.max(input.totalBytes ?? input.body.length, input.body.length);
const isWhole = (input: BodyInput) => wireBytesOf(input) === input.body.length;
const bufferOf = (body: Uint8Array) => Buffer.from(body.buffer, body.byteOffset, body.byteLength);

/** The record of an empty or binary body, which needs no decoding; `undefined` for text. */
function withoutText(input: BodyInput): { value: JsonValue } | undefined {
  const wireBytes = wireBytesOf(input);
  if (wireBytes === 0) return { value: null };
  if (kindOf(mimeOf(input.contentType)) === 'binary') return { value: describeBinary(input.contentType, wireBytes) };
  return undefined;
}

function fromDecoded(input: BodyInput, decoded: Decoded): JsonValue {
  const maxBytes = input.maxBytes ?? DEFAULT_MAX_BODY;
  const kind = kindOf(mimeOf(input.contentType));
  if (!decoded.ok) return describeBinary(input.contentType, wireBytesOf(input), decoded.note);
  const { data } = decoded;
  // The decoded size is only known when everything was kept and decoded.
  const wholeSize = decoded.complete ? data.length : undefined;

  if (kind === 'unknown' && !looksLikeText(data)) return describeBinary(input.contentType, wireBytesOf(input));
  const charset = charsetOf(input.contentType);
  const text = textOf(data, charset, !decoded.complete);
  if (wholeSize !== undefined && wholeSize <= maxBytes) {
    if (kind === 'json' || kind === 'unknown') {
      const parsed = parseJson(text);
      if (parsed.ok) return parsed.value;
    }
    if (kind === 'form') return parseForm(text);
    return text;
  }
  const redacted = redactText(text);
  if (redacted !== text) return cutAt(redacted, maxBytes, wholeSize);
  // Nothing to hide, the usual case: the kept bytes are cut as they are, without encoding the text
  // again (a visible cost on a proxy). Where each character is one byte, the text is cut as well.
  const shown = Math.min(maxBytes, data.length);
  return (
    (text.length === data.length ? text.slice(0, shown) : textOf(data.subarray(0, shown), charset, true)) +
    truncationMarker(shown, wholeSize)
  );
}

/**
 * A text over the limit as a record shows it: redacted first, all that is at hand of it (issue 24:
 * a cut text no longer parses, so the daemon's key redaction could not reach it, and a secret the
 * cut splits would show its first part), then cut at `maxBytes` UTF-8 bytes and marked. The names
 * are the built-in ones; the daemon adds its `--redact-keys` to the text it receives.
 */
export const cutText = (text: string, maxBytes: number, totalBytes: number | undefined): string =>
  cutAt(redactText(text), maxBytes, totalBytes);

function cutAt(text: string, maxBytes: number, totalBytes: number | undefined): string {
  const bytes = Buffer.from(text, 'utf8');
  const shown = Math.min(maxBytes, bytes.length);
  return textOf(bytes.subarray(0, shown), 'utf-8', true) + truncationMarker(shown, totalBytes);
}

function parseJson(text: string): { ok: true; value: JsonValue } | { ok: false } {
  try {
    return { ok: true, value: parseJsonText(text) };
  } catch {
    return { ok: false };
  }
}

function parseForm(text: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const seen = out[key];
    out[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return out;
}

const UTF8 = new TextDecoder('utf-8');

/** `cut` marks a prefix: a character split by the cut is left out rather than shown as U+FFFD. */
function textOf(data: Buffer, charset: string, cut = false): string {
  // A whole UTF-8 body, the usual case, needs no decoder of its own: a decode without `stream` keeps no state.
  if (!cut && (charset === 'utf-8' || charset === 'utf8')) return UTF8.decode(data);
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset);
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  return decoder.decode(data, { stream: cut });
}

/** A body without a content type is text when its first bytes hold no control characters but whitespace. */
function looksLikeText(data: Buffer): boolean {
  const sample = data.subarray(0, 512);
  for (const byte of sample) if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return false;
  return !new TextDecoder('utf-8').decode(sample, { stream: true }).includes('\uFFFD');
}

type Decoded = { ok: true; data: Buffer; complete: boolean } | { ok: false; note: string };

type Decoder = Transform & Zlib;

const DECODERS: Record<string, (() => Decoder)[]> = {
  gzip: [createGunzip],
  'x-gzip': [createGunzip],
  br: [createBrotliDecompress],
  // "deflate" is meant to be zlib-wrapped, but some servers send raw deflate.
  deflate: [createInflate, createInflateRaw],
};

/** The content codings to undo, last applied first. */
const codingsOf = (contentEncoding: string | undefined) =>
  (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity')
    .reverse();

/** Undoes the content codings, last applied first, producing at most `limit + 1` bytes. */
async function decode(
  raw: Buffer,
  contentEncoding: string | undefined,
  limit: number,
  complete: boolean,
): Promise<Decoded> {
  const codings = codingsOf(contentEncoding);
  let data = raw;
  let whole = complete;
  for (const coding of codings) {
    const makers = DECODERS[coding];
    if (!makers) return { ok: false, note: `, ${coding}-encoded` };
    let result: { data: Buffer; complete: boolean } | undefined;
    for (const make of makers) {
      result = await inflatePrefix(data, make, limit + 1, whole).catch(() => undefined);
      if (result) break;
    }
    if (!result) return { ok: false, note: `, undecodable ${coding}` };
    ({ data } = result);
    whole = result.complete;
  }
  return { ok: true, data, complete: whole };
}

/**
 * Streams `input` through a decoder and stops once `limit` bytes came out, so a small compressed
 * body that inflates to gigabytes costs no more than `limit`. A truncated input (`complete` false)
 * yields what its bytes decode to.
 */
function inflatePrefix(
  input: Buffer,
  make: () => Decoder,
  limit: number,
  complete: boolean,
): Promise<{ data: Buffer; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const stream = make();
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (full: boolean) => {
      if (settled) return;
      settled = true;
      stream.destroy();
      const data = Buffer.concat(chunks, size);
      resolve({ data: data.subarray(0, limit), complete: full && data.length <= limit });
    };
    stream.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= limit) finish(false);
    });
    stream.on('end', () => finish(complete));
    stream.on('error', (error: Error) => {
      // A cut-off input ends mid-stream; what decoded so far is the prefix we wanted.
      if (!complete && size > 0) finish(false);
      else if (!settled) {
        settled = true;
        reject(error);
      }
    });
    if (complete) stream.end(input);
    else {
      stream.write(input);
      stream.flush(() => finish(false));
    }
  });
}
