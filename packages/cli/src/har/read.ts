import { captureBody, isRecordedMethod, queryMap, type RecordBody } from '@tapline/shared';
import { z } from 'zod';
import { invalid } from '../exit-codes.js';

/**
 * The part of HAR 1.2 an import reads. Browsers (Chrome, Firefox), mitmproxy and HTTP Toolkit
 * all write these members; anything else in an entry is ignored, and so are custom `_` fields.
 */
const NameValues = z.array(z.object({ name: z.string(), value: z.string() })).default([]);
const HarEntry = z.object({
  startedDateTime: z.string(),
  time: z.number(),
  request: z.object({
    method: z.string(),
    url: z.string(),
    headers: NameValues,
    postData: z.object({ mimeType: z.string().optional(), text: z.string().optional() }).optional(),
  }),
  response: z.object({
    status: z.number(),
    headers: NameValues,
    content: z
      .object({ mimeType: z.string().optional(), text: z.string().optional(), encoding: z.string().optional() })
      .optional(),
  }),
});
const Har = z.object({ log: z.object({ entries: z.array(z.unknown()) }) });
type HarEntry = z.output<typeof HarEntry>;

export interface HarImport {
  /** The records to send, each labelled by its entry (`entry 3`) for messages. */
  readonly records: { readonly where: string; readonly body: RecordBody }[];
  /** Entries not recorded, by reason (`OPTIONS`, `no response`, `ws: URL`), with their counts. */
  readonly skipped: Map<string, number>;
}

/** HTTP/2 pseudo-headers (`:authority`) that Chrome exports are not headers of the request. */
function headerMap(pairs: readonly { name: string; value: string }[]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const { name, value } of pairs) {
    if (name.startsWith(':')) continue;
    const key = name.toLowerCase();
    const seen = out[key];
    out[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return out;
}

/** A HAR body through the same capture rules as the proxy (JSON parsed, binary described, size capped). */
function body(text: string | undefined, mimeType: string | undefined, base64: boolean, maxBytes: number) {
  if (text === undefined || text === '') return Promise.resolve(null);
  const bytes = base64 ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
  return captureBody({ body: bytes, totalBytes: bytes.length, contentType: mimeType, maxBytes });
}

async function toRecord(entry: HarEntry, maxBytes: number): Promise<RecordBody | string> {
  if (!isRecordedMethod(entry.request.method)) return entry.request.method.toUpperCase();
  if (entry.response.status < 100 || entry.response.status > 599) return 'no response';
  if (!URL.canParse(entry.request.url)) return 'unreadable URL';
  const url = new URL(entry.request.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${url.protocol} URL`;
  const started = new Date(entry.startedDateTime);
  return {
    domainUrl: url.origin,
    pathnameUrl: url.pathname,
    status: entry.response.status,
    protocol: url.protocol === 'https:' ? 'HTTPS' : 'HTTP',
    method: entry.request.method.toUpperCase(),
    elapsedTime: Math.max(0, entry.time),
    requestHeaders: headerMap(entry.request.headers),
    requestBody: await body(entry.request.postData?.text, entry.request.postData?.mimeType, false, maxBytes),
    queryParams: queryMap(url.searchParams),
    responseHeaders: headerMap(entry.response.headers),
    responseBody: await body(
      entry.response.content?.text,
      entry.response.content?.mimeType,
      entry.response.content?.encoding === 'base64',
      maxBytes,
    ),
    ...(Number.isNaN(started.getTime()) ? {} : { startedAt: started.toISOString() }),
  };
}

/**
 * A HAR file's entries as compose bodies. Anything that is not HAR (not JSON, no `log.entries`,
 * an entry without its request, response or times) is refused whole, naming the entry, before
 * anything is sent; entries of methods the interface does not record are counted, not sent.
 */
export async function readHar(text: string, file: string, maxBytes: number): Promise<HarImport> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw invalid(
      `${file} is not a HAR file: it is not JSON (${error instanceof Error ? error.message : String(error)}); nothing was sent`,
    );
  }
  const har = Har.safeParse(json);
  if (!har.success)
    throw invalid(
      `${file} is not a HAR file: it has no log.entries array; nothing was sent`,
      'export one from the browser devtools (Network, "Save all as HAR"), mitmproxy or HTTP Toolkit',
    );
  const records: HarImport['records'][number][] = [];
  const skipped = new Map<string, number>();
  for (const [index, raw] of har.data.log.entries.entries()) {
    const entry = HarEntry.safeParse(raw);
    if (!entry.success) {
      const issue = entry.error.issues[0];
      throw invalid(
        `${file}: entry ${index + 1} is not a HAR entry (${issue ? `${issue.path.join('.')}: ${issue.message}` : 'invalid'}); nothing was sent`,
      );
    }
    const record = await toRecord(entry.data, maxBytes);
    if (typeof record === 'string') skipped.set(record, (skipped.get(record) ?? 0) + 1);
    else records.push({ where: `entry ${index + 1}`, body: record });
  }
  return { records, skipped };
}
