import type { ComposeRecordInput, JsonValue } from '@tapline/shared';
import { ENDPOINTS, errorBody } from './endpoints.js';
import { requestHeaders, responseHeaders } from './headers.js';
import { createRandom } from './random.js';

/** Posted sizes (bytes of the JSON body) the generator draws from: a realistic transaction's. */
export const REALISTIC_SIZE = { min: 1400, max: 1700 } as const;

const PLACEHOLDER_SOURCE = '00000000-0000-4000-8000-000000000000';
const OPTIONAL_HEADERS = [
  'sec-ch-ua',
  'strict-transport-security',
  'sec-ch-ua-platform',
  'etag',
  'traceresponse',
  'referer',
  'x-content-type-options',
  'sec-ch-ua-mobile',
  'idempotency-key',
  'accept-language',
  'sec-fetch-site',
  'sec-fetch-mode',
  'vary',
  'x-ratelimit-limit',
  'date',
];
const HOSTS = ['https://api.example.com', 'https://shop.example.com', 'https://api.example.com:8443'];

/**
 * A compose body as an instrumented app posts it: real header sets (browser, curl, SDK; cookies,
 * caching, CORS, tracing), a JSON request body where the method has one and a JSON answer, secrets
 * to redact included. The same seed gives the same record. Its posted size is drawn from
 * REALISTIC_SIZE and reached by lengthening the answer's list, then an opaque cursor, as
 * paginated APIs answer. Not the sample record (sample-record.json), which tests read field by field.
 */
export function realisticRecord(seed: number, trafficSourceId: string = PLACEHOLDER_SOURCE): ComposeRecordInput {
  const r = createRandom(seed);
  const client = r.pick(['browser', 'browser', 'sdk', 'curl'] as const);
  const exchange = r.pick(ENDPOINTS)(r, client);
  const roll = r.next();
  const status = roll < 0.05 ? 502 : roll < 0.12 ? 422 : exchange.method === 'POST' ? 201 : 200;
  const failed = status >= 400 ? errorBody(r, status) : undefined;
  const domainUrl = r.pick(HOSTS);
  const answer: { [key: string]: JsonValue } = failed ? failed.body : exchange.responseBody;
  const grow = failed ? failed.grow : exchange.grow;

  const record: ComposeRecordInput = {
    trafficSourceId,
    domainUrl,
    pathnameUrl: exchange.pathname,
    status,
    protocol: 'HTTPS',
    method: exchange.method,
    elapsedTime: Math.round((status === 502 ? r.int(5000, 30000) : r.int(8, 900)) * 10 + r.int(0, 9)) / 100,
    requestHeaders: requestHeaders(r, client, new URL(domainUrl).host, exchange.requestBody !== null),
    requestBody: exchange.requestBody,
    queryParams: exchange.queryParams,
    responseHeaders: responseHeaders(r, client, status),
    responseBody: answer,
  };

  const target = r.int(REALISTIC_SIZE.min + 20, REALISTIC_SIZE.max - 20);
  const size = () => Buffer.byteLength(JSON.stringify(record));
  // A record over its size sheds the headers that clients and servers often leave out.
  for (const name of OPTIONAL_HEADERS) {
    if (size() <= target) break;
    delete record.requestHeaders[name];
    delete record.responseHeaders[name];
  }
  // Grow while the next element still fits; the cursor then takes up what is left (it may not fit
  // when little is), which keeps every size within 20 bytes below its target.
  for (let guard = 0; guard < 100; guard++) {
    const before = JSON.stringify(answer);
    grow();
    if (size() > target) {
      Object.assign(record, { responseBody: JSON.parse(before) as JsonValue });
      break;
    }
  }
  const overhead = ',"cursor":""'.length;
  const room = target - size() - overhead;
  if (
    room > 0 &&
    record.responseBody &&
    typeof record.responseBody === 'object' &&
    !Array.isArray(record.responseBody)
  ) {
    record.responseBody.cursor = r.text(room);
  }
  return record;
}
