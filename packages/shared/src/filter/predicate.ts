import type { HttpTraffic, HttpTrafficRecord } from '../schemas/http-traffic.js';
import { asciiLower, filterNeedsRecord, type FilterComparison, type FilterExpr, LEVEL_RANK } from './ast.js';

/** Where a filter is tested in memory: the list entry, and the whole record when one is at hand. */
export type TrafficPredicate = (entry: HttpTraffic, record?: HttpTrafficRecord) => boolean;

type HeaderSource = Readonly<Record<string, string | readonly string[]>>;

/** The text a `body` condition searches: the body's JSON text, as stored; no body is empty text. */
export const bodyText = (body: unknown): string => (body === null || body === undefined ? '' : JSON.stringify(body));

function headerValues(record: HttpTrafficRecord, name: string): string[] {
  const values: string[] = [];
  const sources: readonly HeaderSource[] = [record.request.headers, record.response.headers];
  for (const headers of sources) {
    for (const [key, value] of Object.entries(headers)) {
      if (asciiLower(key) === name) values.push(...(typeof value === 'string' ? [value] : value));
    }
  }
  return values;
}

/** Also what an alert rule's condition compares with (alerts/condition.ts). */
export function compareNumber(actual: number, op: FilterComparison['op'], expected: number): boolean {
  switch (op) {
    case '=':
      return actual === expected;
    case '!=':
      return actual !== expected;
    case '>':
      return actual > expected;
    case '>=':
      return actual >= expected;
    case '<':
      return actual < expected;
    case '<=':
      return actual <= expected;
    default:
      return false;
  }
}

/** `status<op>4xx`: `=` is within the class, `>` above all of it, `>=` from its first code on. */
function compareStatusClass(status: number, op: FilterComparison['op'], cls: string): boolean {
  const min = Number(cls[0]) * 100;
  const max = min + 99;
  switch (op) {
    case '=':
      return status >= min && status <= max;
    case '!=':
      return status < min || status > max;
    case '>':
      return status > max;
    case '>=':
      return status >= min;
    case '<':
      return status < min;
    case '<=':
      return status <= max;
    default:
      return false;
  }
}

/** One text value against `= ^= ~`; `!=` is handled by the caller as "no value equals". */
function matchText(actual: string, op: FilterComparison['op'], expected: string): boolean {
  if (op === '^=') return actual.startsWith(expected);
  if (op === '~') return asciiLower(actual).includes(asciiLower(expected));
  return actual === expected;
}

/** A condition over several texts (both headers, both bodies) holds when any of them matches. */
function matchAny(values: readonly string[], op: FilterComparison['op'], expected: string): boolean {
  if (op === '!=') return !values.some((v) => v === expected);
  return values.some((v) => matchText(v, op, expected));
}

function compare(c: FilterComparison, entry: HttpTraffic, record: HttpTrafficRecord | undefined): boolean | undefined {
  const text = String(c.value);
  switch (c.field) {
    case 'status':
      return typeof c.value === 'number'
        ? compareNumber(entry.status, c.op, c.value)
        : compareStatusClass(entry.status, c.op, text);
    case 'latency':
      return compareNumber(entry.elapsedTime, c.op, Number(c.value));
    case 'level':
      return compareNumber(LEVEL_RANK[entry.level] ?? -1, c.op, LEVEL_RANK[text] ?? -1);
    case 'method':
      return matchAny([entry.method], c.op, text);
    case 'protocol':
      return matchAny([entry.protocol], c.op, text);
    case 'path':
      return matchAny([entry.pathname], c.op, text);
    case 'domain':
      return matchAny([entry.domain], c.op, text);
    case 'route':
      return matchAny([entry.route ?? ''], c.op, text);
    case 'user':
      // No user reads as empty text, so `user=""` finds anonymous traffic, as in SQL.
      return matchAny([entry.trafficUserId ?? ''], c.op, text);
    case 'header':
      return record ? matchAny(headerValues(record, c.header ?? ''), c.op, text) : undefined;
    case 'body':
      return record ? matchAny([bodyText(record.request.body), bodyText(record.response.body)], c.op, text) : undefined;
  }
}

/**
 * Kleene logic: `undefined` means the answer needs the record (a header or body condition and no
 * record given). `false and unknown` is still false, so most entries are decided without one.
 */
export function evaluateFilter(expr: FilterExpr, entry: HttpTraffic, record?: HttpTrafficRecord): boolean | undefined {
  switch (expr.type) {
    case 'compare':
      return compare(expr, entry, record);
    case 'not': {
      const inner = evaluateFilter(expr.operand, entry, record);
      return inner === undefined ? undefined : !inner;
    }
    case 'and': {
      let result: boolean | undefined = true;
      for (const operand of expr.operands) {
        const value = evaluateFilter(operand, entry, record);
        if (value === false) return false;
        if (value === undefined) result = undefined;
      }
      return result;
    }
    case 'or': {
      let result: boolean | undefined = false;
      for (const operand of expr.operands) {
        const value = evaluateFilter(operand, entry, record);
        if (value === true) return true;
        if (value === undefined) result = undefined;
      }
      return result;
    }
  }
}

/**
 * A predicate with the same meaning as the daemon's SQL. When `needsRecord` is true, pass the
 * record: without it an entry whose answer depends on a header or body does not match.
 */
export function compilePredicate(expr: FilterExpr): TrafficPredicate & { readonly needsRecord: boolean } {
  const predicate = (entry: HttpTraffic, record?: HttpTrafficRecord) => evaluateFilter(expr, entry, record) === true;
  return Object.assign(predicate, { needsRecord: filterNeedsRecord(expr) });
}
