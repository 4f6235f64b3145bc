/**
 * The filter language's syntax tree. It holds normalised values only (methods and levels upper
 * case, domains and header names lower case, latencies in milliseconds) and no source positions,
 * so two spellings of one filter give equal trees and printing a tree parses back to it.
 */

export const FILTER_FIELDS = [
  'method',
  'status',
  'level',
  'latency',
  'path',
  'domain',
  'protocol',
  'user',
  'header',
  'body',
  'route',
] as const;
export type FilterField = (typeof FILTER_FIELDS)[number];

/** Longest first, so the scanner takes `>=` before `>`. */
export const FILTER_OPERATORS = ['>=', '<=', '!=', '^=', '=', '>', '<', '~'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

const ORDER_OPS = ['=', '!=', '>', '>=', '<', '<='] as const satisfies readonly FilterOperator[];
const TEXT_OPS = ['=', '!=', '^=', '~'] as const satisfies readonly FilterOperator[];
const ENUM_OPS = ['=', '!='] as const satisfies readonly FilterOperator[];

/** Which operators each field takes: numbers and levels order, text matches, enumerations compare. */
export const FIELD_OPERATORS: Readonly<Record<FilterField, readonly FilterOperator[]>> = {
  status: ORDER_OPS,
  latency: ORDER_OPS,
  level: ORDER_OPS,
  method: ENUM_OPS,
  protocol: ENUM_OPS,
  path: TEXT_OPS,
  domain: TEXT_OPS,
  user: TEXT_OPS,
  header: TEXT_OPS,
  body: TEXT_OPS,
  route: TEXT_OPS,
};

/**
 * `field op value`. `value` is a number for `latency` (milliseconds) and for an exact `status`;
 * a status class is the string `4xx`. `header` names the header (lower case) when field is `header`.
 */
export interface FilterComparison {
  readonly type: 'compare';
  readonly field: FilterField;
  readonly header?: string;
  readonly op: FilterOperator;
  readonly value: string | number;
}

/** `and`/`or` chains are n-ary; a parenthesised group of the same kind stays a nested node. */
export interface FilterAnd {
  readonly type: 'and';
  readonly operands: readonly FilterExpr[];
}
export interface FilterOr {
  readonly type: 'or';
  readonly operands: readonly FilterExpr[];
}
export interface FilterNot {
  readonly type: 'not';
  readonly operand: FilterExpr;
}

export type FilterExpr = FilterComparison | FilterAnd | FilterOr | FilterNot;

/** Limits that keep one query string from costing the daemon more than a page of SQL. */
export const FILTER_LIMITS = { length: 4000, depth: 32, comparisons: 100 } as const;

/** INFO < WARNING < FATAL, so `level>=WARNING` means WARNING or FATAL. */
export const LEVEL_RANK: Readonly<Record<string, number>> = { INFO: 0, WARNING: 1, FATAL: 2 };

/**
 * Lower case for ASCII letters only. SQLite's `lower()` folds nothing else, and the in-memory
 * predicate must agree with the SQL the daemon runs, letter for letter.
 */
export const asciiLower = (text: string): string => text.replace(/[A-Z]+/g, (m) => m.toLowerCase());

/** True when any comparison looks at a header or a body, which only the whole record holds. */
export function filterNeedsRecord(expr: FilterExpr): boolean {
  switch (expr.type) {
    case 'compare':
      return expr.field === 'header' || expr.field === 'body';
    case 'not':
      return filterNeedsRecord(expr.operand);
    default:
      return expr.operands.some(filterNeedsRecord);
  }
}
