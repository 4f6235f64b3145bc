import type { FilterComparison, FilterExpr } from './ast.js';

const BARE = /^[^\s()"'\\]+$/;

/** A value as the parser reads it back: bare when it can be, else double-quoted. */
function printValue(value: string | number): string {
  const text = String(value);
  return BARE.test(text) ? text : `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

function printComparison(c: FilterComparison): string {
  const field = c.field === 'header' ? `header.${c.header ?? ''}` : c.field;
  return `${field}${c.op}${printValue(c.value)}`;
}

/**
 * The canonical text of a filter: `parseFilter(printFilter(e))` equals `e`. Parentheses appear
 * only where the tree needs them (an `or` inside an `and`, a nested chain of the same kind).
 */
export function printFilter(expr: FilterExpr): string {
  switch (expr.type) {
    case 'compare':
      return printComparison(expr);
    case 'not':
      return `not ${expr.operand.type === 'and' || expr.operand.type === 'or' ? `(${printFilter(expr.operand)})` : printFilter(expr.operand)}`;
    case 'and':
      return expr.operands
        .map((o) => (o.type === 'and' || o.type === 'or' ? `(${printFilter(o)})` : printFilter(o)))
        .join(' and ');
    case 'or':
      return expr.operands.map((o) => (o.type === 'or' ? `(${printFilter(o)})` : printFilter(o))).join(' or ');
  }
}
