import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import type { ServerDeps } from './server-deps.js';
import { BODY_TOO_LARGE, HttpError, OVERLOADED, REQUEST_ABORTED } from './errors.js';
import { deeperThan, MAX_JSON_DEPTH, NOT_UTF8, parseJson, TOO_DEEP } from './json-body.js';
import { carriesBody } from './linger.js';

export const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json\s*(?:;|$)/i;
const CHARSET = /;\s*charset\s*=/i;
const UTF8 = /;\s*charset\s*=\s*"?utf-?8"?\s*(?:;|$)/i;

/**
 * What the reader does with a JSON body: `parse` it; keep it `raw`, a Buffer still to be parsed
 * (the batch endpoint parses in a worker thread); or `none` for endpoints that take no body,
 * where only the type is checked and nothing is read.
 */
export type BodyMode = 'parse' | 'raw' | 'none';

type Headers = IncomingMessage['headers'];

/** Whether the body is sent as it is, not compressed: its declared length is then its size. */
function identityEncoded(headers: Headers): boolean {
  const encoding = headers['content-encoding'];
  return encoding === undefined || (typeof encoding === 'string' && encoding.toLowerCase() === 'identity');
}

/**
 * A body whose declared length is over the limit (as body-parser counts it: an uncompressed body)
 * is refused before any of it is read, where body-parser read it all first; the refusal lingers
 * instead (linger.ts), within bounds.
 */
export function declaredOver(headers: Headers, limit: number): boolean {
  return (
    identityEncoded(headers) &&
    headers['transfer-encoding'] === undefined &&
    Number(headers['content-length'] ?? 0) > limit
  );
}

/**
 * The one kind of body read here without body-parser, and the only one the lean path takes: JSON
 * (UTF-8, the only charset decoded here) of a declared length within `limit`, neither chunked nor
 * compressed. Its length, or undefined for any other body.
 */
export function plainLength(headers: Headers, limit: number): number | undefined {
  const length = headers['content-length'];
  if (
    length === undefined ||
    headers['transfer-encoding'] !== undefined ||
    headers['content-encoding'] !== undefined ||
    !/^[0-9]{1,10}$/.test(length)
  )
    return undefined;
  const type = headers['content-type'] ?? '';
  if (!JSON_TYPE.test(type) || (CHARSET.test(type) && !UTF8.test(type))) return undefined;
  const bytes = Number(length);
  return bytes > 0 && bytes <= limit ? bytes : undefined;
}

/** 415 for a body that is not JSON (or, read raw, not UTF-8 JSON), 413 past the limit; from the headers alone. */
function refusal(headers: Headers, limit: number, mode: BodyMode): HttpError | undefined {
  const type = headers['content-type'] ?? '';
  if (!JSON_TYPE.test(type))
    return new HttpError(415, 'unsupported_media_type', 'Content-Type must be application/json');
  if (mode === 'none') return undefined;
  // body-parser decodes any utf-* charset; a raw body is decoded as UTF-8 later, so say so now.
  if (mode === 'raw' && CHARSET.test(type) && !UTF8.test(type))
    return new HttpError(415, 'unsupported_media_type', 'Unsupported charset; send UTF-8 JSON');
  return declaredOver(headers, limit) ? BODY_TOO_LARGE : undefined;
}

/** Chunked bodies have no length up front; they may be large. */
const isLarge = (headers: Headers, bytes: number) =>
  headers['content-length'] === undefined || Number(headers['content-length']) > bytes;

/**
 * A large body is read only once the gate lets it in, and holds its place until the answer is
 * gone: reading, parsing and storing one costs many times its size in memory, so the number of
 * them at once is what bounds the daemon's memory. Waiting clients' bytes stay in their sockets.
 * With `storedBatches` (PostgreSQL), the place is handed on once the batch is prepared (handOver).
 */
async function admitLarge(
  req: IncomingMessage,
  res: ServerResponse,
  deps: Pick<ServerDeps, 'largeBodies' | 'storedBatches'>,
): Promise<HandOff | undefined> {
  const release = await deps.largeBodies.enter();
  if (!release) throw OVERLOADED;
  // The body's declared size tells the reclaimer how much memory it left (http/reclaim.ts). A
  // chunked one has none, and a compressed one's is not what it inflates to: either is taken for
  // the largest.
  const declared = Number(req.headers['content-length']);
  const bytes = Number.isFinite(declared) && identityEncoded(req.headers) ? declared : undefined;
  let closed = false;
  let stored: ((bytes?: number) => void) | undefined;
  res.once('close', () => {
    closed = true;
    (stored ?? release)(bytes);
  });
  // Gone while it waited: its close is past, so the place is given back here, nothing read.
  if (req.destroyed) {
    release(0);
    throw REQUEST_ABORTED;
  }
  const storing = deps.storedBatches;
  if (!storing) return undefined;
  return async () => {
    const turn = await storing.enter();
    if (!turn) throw OVERLOADED;
    // Gone meanwhile: its close gave its place back; it holds no other.
    if (closed) return turn(0);
    // The answer's close gives this place back, and the reclaimer hears of the body then, as it
    // did of a place held to the end; the reading place goes to the next body now, with no bytes.
    stored = turn;
    release(0);
  };
}

/** Waits for the batch's turn to be stored, then gives its reading place to the next large body. */
type HandOff = () => Promise<void>;

/** Large bodies read while `storedBatches` is on, by their bytes (a Buffer in the `raw` mode). */
const handOffs = new WeakMap<object, HandOff>();

/**
 * Called once a large batch's body is prepared, before it is stored (docs/decisions.md §20.28):
 * on PostgreSQL it waits until fewer than two per `--max-large-batches` are being stored (§20.42;
 * up to `--large-batch-wait`, then 503 `overloaded`), takes that turn until its answer is gone, and gives its place at the
 * large-batch gate to the next body, which is read and prepared while this one is stored. Any
 * other body, and every body on SQLite, goes on at once, holding its place as before.
 */
export async function handOver(body: unknown): Promise<void> {
  if (typeof body !== 'object' || body === null) return;
  const handOff = handOffs.get(body);
  if (!handOff) return;
  handOffs.delete(body);
  await handOff();
}

/** The whole body; rejects as body-parser does when the client goes away before sending it. */
function readBytes(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // The client may have gone while the token was checked: its close and error events are past,
    // and waiting for them would hold the request (and a stop) for ever.
    if (req.destroyed) return reject(REQUEST_ABORTED);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => resolve(chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks)));
    req.once('error', () => reject(REQUEST_ABORTED));
    req.once('close', () => req.complete || reject(REQUEST_ABORTED));
  });
}

/** A plain body's bytes as body-parser would give them: `parse` mode's value, `raw` mode's buffer. */
function decode(bytes: Buffer, mode: 'parse' | 'raw'): unknown {
  if (!isUtf8(bytes)) throw new HttpError(400, 'malformed_json', NOT_UTF8);
  if (mode === 'raw') return bytes;
  const text = bytes.toString('utf8');
  // body-parser takes a body that is empty once its byte-order mark is dropped as `{}`.
  return text === '\uFEFF' ? {} : parseJson(text);
}

/**
 * The decoders replace bytes that are not UTF-8 with U+FFFD, so a record would be stored other
 * than it was sent and still answered 201; refusing the body keeps what is stored what was sent.
 * A `charset` other than UTF-8 (the parsing reader decodes UTF-16 too) is left to its decoder.
 */
function checkUtf8(_req: unknown, _res: unknown, buffer: Buffer, encoding: string | null | undefined): void {
  // The raw reader passes no encoding: its body is decoded as UTF-8 later, so it must be UTF-8.
  if ((!encoding || /^utf-?8$/i.test(encoding)) && !isUtf8(buffer)) throw new Error(NOT_UTF8);
}

const isVerifyFailure = (error: unknown) =>
  typeof error === 'object' && error !== null && 'type' in error && error.type === 'entity.verify.failed';

/**
 * Every other body (compressed, chunked, another utf-* charset) goes through body-parser, which
 * inflates and decodes it; its errors are mapped to answers in errors.ts.
 */
function otherReader(
  limit: number,
  mode: 'parse' | 'raw',
): (req: IncomingMessage, res: ServerResponse) => Promise<unknown> {
  const parser =
    mode === 'raw'
      ? express.raw({ limit, type: () => true, verify: checkUtf8 })
      : express.json({ limit, strict: false, type: () => true, verify: checkUtf8 });
  return (req, res) =>
    new Promise((resolve, reject) =>
      parser(req, res, (error?: unknown) => {
        if (isVerifyFailure(error)) return reject(new HttpError(400, 'malformed_json', NOT_UTF8));
        // body-parser's errors are Errors (http-errors) carrying the `type` errors.ts maps.
        if (error) return reject(error instanceof Error ? error : new Error('body-parser failed', { cause: error }));
        // body-parser leaves what it read on the request.
        const body: unknown = Reflect.get(req, 'body');
        if (mode === 'parse' && deeperThan(body, MAX_JSON_DEPTH))
          return reject(new HttpError(400, 'body_too_deep', TOO_DEEP));
        resolve(body);
      }),
    );
}

export interface BodyReader {
  /**
   * The body of any request to the endpoint: undefined when it carries none (or the endpoint
   * reads none); rejects with the error to answer: 415, 413, 400 (malformed, not UTF-8, too deep),
   * the large-batch gate's 503.
   */
  read(req: IncomingMessage, res: ServerResponse): Promise<unknown>;
  /** Whether the request's body is plain (see `plainLength`); the lean path serves only those. */
  plain(req: IncomingMessage): boolean;
}

/**
 * The one JSON body reader, on node:http: the Express adapter (body.ts) and the lean ingest path
 * (lean.ts) both read through it, so the rules (type, length, UTF-8, byte-order mark, depth, the
 * large-batch gate) are written once (docs/decisions.md §26.8).
 */
export function createBodyReader(
  limit: number,
  mode: BodyMode,
  deps: Pick<ServerDeps, 'largeBodies' | 'storedBatches' | 'config'>,
): BodyReader {
  const other = mode === 'none' ? undefined : otherReader(limit, mode);
  const plain = (req: IncomingMessage) => plainLength(req.headers, limit) !== undefined;
  return {
    plain,
    async read(req, res) {
      if (!carriesBody(req.headers)) return undefined;
      const refused = refusal(req.headers, limit, mode);
      if (refused) throw refused;
      if (mode === 'none' || !other) return undefined;
      const handOff =
        mode === 'raw' && isLarge(req.headers, deps.config.limits.largeBatchBytes)
          ? await admitLarge(req, res, deps)
          : undefined;
      const body = plain(req) ? decode(await readBytes(req), mode) : await other(req, res);
      if (handOff && typeof body === 'object' && body !== null) handOffs.set(body, handOff);
      return body;
    },
  };
}
