import microdiff from 'microdiff';
import { isJsonValue } from '../json.js';
import { recordUrl } from '../curl.js';
import type { HttpTrafficRecord, JsonValue } from '../schemas/http-traffic.js';
import { formatPath } from './path.js';

/** One difference between exchange A and exchange B, at a path such as `response.body.items[3].price`. */
export interface Difference {
  readonly path: string;
  readonly segments: readonly (string | number)[];
  readonly kind: 'changed' | 'added' | 'removed';
  /** The value in A; absent when B added it. */
  readonly a?: JsonValue;
  /** The value in B; absent when B removed it. */
  readonly b?: JsonValue;
}

type Headers = Readonly<Record<string, string | readonly string[]>>;

/** Header names differ in case between clients; the comparison should not. */
const lowerNames = (headers: Headers) =>
  Object.fromEntries(Object.entries(headers).map(([n, v]) => [n.toLowerCase(), v]));

/**
 * What is compared, in the order a reader checks it: the outcome, the timing, the request line,
 * then headers and bodies. Ids and times are what makes two exchanges two: they are not compared.
 */
function comparable(r: HttpTrafficRecord) {
  return {
    status: r.status,
    level: r.level,
    elapsedTime: r.elapsedTime,
    method: r.method,
    url: recordUrl({ ...r, request: { ...r.request, queryParams: {} } }),
    request: { query: r.request.queryParams, headers: lowerNames(r.request.headers), body: r.request.body },
    response: { headers: lowerNames(r.response.headers), body: r.response.body },
  };
}

/** microdiff types the values it found as `any`; both sides are parts of records, hence JSON. */
const json = (value: unknown): JsonValue | undefined => (isJsonValue(value) ? value : undefined);

/**
 * Every difference, bodies compared as JSON by path (not by line), with microdiff: arrays are
 * compared index by index, which is how an API's list answers are read (`items[3]`).
 */
export function diffRecords(a: HttpTrafficRecord, b: HttpTrafficRecord): Difference[] {
  return microdiff(comparable(a), comparable(b), { cyclesFix: false }).map((d): Difference => {
    const base = { path: formatPath(d.path), segments: d.path };
    if (d.type === 'CREATE') return { ...base, kind: 'added', b: json(d.value) };
    if (d.type === 'REMOVE') return { ...base, kind: 'removed', a: json(d.oldValue) };
    return { ...base, kind: 'changed', a: json(d.oldValue), b: json(d.value) };
  });
}
