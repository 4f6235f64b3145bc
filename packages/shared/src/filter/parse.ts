import { normalizeTemplate } from '../routes/template.js';
import { HTTP_METHODS, LEVELS, PROTOCOLS } from '../schemas/traffic-enums.js';
import {
  asciiLower,
  FIELD_OPERATORS,
  FILTER_LIMITS,
  FILTER_FIELDS,
  FILTER_OPERATORS,
  type FilterComparison,
  type FilterExpr,
  type FilterField,
  type FilterOperator,
} from './ast.js';

/** A filter that does not parse. `column` is 1-based, counted in characters of the expression. */
export class FilterSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly column: number,
    readonly expression: string,
  ) {
    super(`${reason} at column ${column}`);
    this.name = 'FilterSyntaxError';
  }
}

/** The expression with a caret under the mistake, for terminals: two lines, no trailing newline. */
export function pointAtColumn(error: FilterSyntaxError): string {
  return `${error.expression}\n${' '.repeat(Math.max(0, error.column - 1))}^ ${error.reason}`;
}

const FIELD_NAME = /[A-Za-z0-9_.-]/;
const KEYWORD_END = /[\s()]/;
const fieldList = FILTER_FIELDS.map((f) => (f === 'header' ? 'header.<name>' : f)).join(', ');

/**
 * Grammar, loosest first (`not` binds tighter than `and`, `and` tighter than `or`):
 *
 *   expr       := and ("or" and)*
 *   and        := unary ("and" unary)*
 *   unary      := "not" unary | "(" expr ")" | comparison
 *   comparison := field operator value
 *   value      := "quoted" | 'quoted' | bare          (bare: up to a space or parenthesis)
 *
 * Keywords and field names are case-insensitive; spaces around operators are optional.
 */
export function parseFilter(expression: string): FilterExpr {
  return new Parser(expression).parse();
}

/** `parseFilter`, answering the error as a value: for a prompt that validates as the user types. */
export function tryParseFilter(
  expression: string,
): { ok: true; expr: FilterExpr } | { ok: false; error: FilterSyntaxError } {
  try {
    return { ok: true, expr: parseFilter(expression) };
  } catch (error) {
    if (error instanceof FilterSyntaxError) return { ok: false, error };
    throw error;
  }
}

class Parser {
  private pos = 0;
  private depth = 0;
  private comparisons = 0;

  constructor(private readonly text: string) {}

  parse(): FilterExpr {
    if (this.text.length > FILTER_LIMITS.length)
      this.fail(`the expression is longer than ${FILTER_LIMITS.length} characters`, FILTER_LIMITS.length);
    this.skipSpace();
    if (this.atEnd()) this.fail('expected a condition such as status>=500');
    const expr = this.parseOr();
    this.skipSpace();
    if (!this.atEnd()) {
      const ch = this.text[this.pos];
      this.fail(
        ch === ')'
          ? 'unexpected ")" without a matching "("'
          : `expected "and", "or" or the end, found "${this.peekWord()}"`,
      );
    }
    return expr;
  }

  private parseOr(): FilterExpr {
    const operands = [this.parseAnd()];
    while (this.keyword('or')) operands.push(this.parseAnd());
    return operands.length === 1 ? operands[0]! : { type: 'or', operands };
  }

  private parseAnd(): FilterExpr {
    const operands = [this.parseUnary()];
    while (this.keyword('and')) operands.push(this.parseUnary());
    return operands.length === 1 ? operands[0]! : { type: 'and', operands };
  }

  private parseUnary(): FilterExpr {
    this.skipSpace();
    const start = this.pos;
    if (this.keyword('not')) return this.nested(start, () => ({ type: 'not', operand: this.parseUnary() }));
    if (this.text[this.pos] === '(') {
      this.pos++;
      return this.nested(start, () => {
        const inner = this.parseOr();
        this.skipSpace();
        if (this.text[this.pos] !== ')') {
          this.fail(
            this.atEnd()
              ? `missing ")" to close the "(" at column ${start + 1}`
              : `expected ")" or "and"/"or", found "${this.peekWord()}"`,
          );
        }
        this.pos++;
        return inner;
      });
    }
    return this.parseComparison();
  }

  private nested(start: number, parse: () => FilterExpr): FilterExpr {
    if (++this.depth > FILTER_LIMITS.depth) this.fail(`nesting is deeper than ${FILTER_LIMITS.depth} levels`, start);
    const expr = parse();
    this.depth--;
    return expr;
  }

  private parseComparison(): FilterComparison {
    this.skipSpace();
    const fieldStart = this.pos;
    while (!this.atEnd() && FIELD_NAME.test(this.text[this.pos]!)) this.pos++;
    const name = asciiLower(this.text.slice(fieldStart, this.pos));
    if (!name) {
      this.fail(this.atEnd() ? 'expected a condition' : `expected a field (${fieldList}), found "${this.peekWord()}"`);
    }
    const { field, header } = this.resolveField(name, fieldStart);
    if (++this.comparisons > FILTER_LIMITS.comparisons)
      this.fail(`more than ${FILTER_LIMITS.comparisons} conditions`, fieldStart);

    this.skipSpace();
    const opStart = this.pos;
    const op = FILTER_OPERATORS.find((o) => this.text.startsWith(o, this.pos));
    if (!op) this.fail(`expected an operator (${FIELD_OPERATORS[field].join(' ')}) after "${name}"`);
    if (!FIELD_OPERATORS[field].includes(op))
      this.fail(`${field} does not take ${op}; use ${FIELD_OPERATORS[field].join(' ')}`, opStart);
    this.pos += op.length;

    this.skipSpace();
    const valueStart = this.pos;
    const raw = this.readValue(op);
    const value =
      field === 'route' && (op === '=' || op === '!=')
        ? (normalizeTemplate(raw) ?? raw)
        : this.normalise(field, raw, valueStart);
    return header === undefined ? { type: 'compare', field, op, value } : { type: 'compare', field, header, op, value };
  }

  private resolveField(name: string, at: number): { field: FilterField; header?: string } {
    if (name.startsWith('header.')) {
      const header = name.slice('header.'.length);
      if (!/^[a-z0-9_-][a-z0-9_.-]*$/.test(header))
        this.fail('expected a header name after "header.", such as header.content-type', at + 'header.'.length);
      return { field: 'header', header };
    }
    if (name === 'and' || name === 'or') this.fail(`expected a condition, found "${name}"`, at);
    const field = FILTER_FIELDS.find((f) => f === name);
    if (!field) this.fail(`unknown field "${name}"; fields are ${fieldList}`, at);
    if (field === 'header') this.fail('name the header: header.<name>, such as header.content-type', at);
    return { field };
  }

  /** A quoted string (`\"`, `\'` and `\\` escape; any other backslash is literal) or a bare word. */
  private readValue(op: FilterOperator): string {
    const quote = this.text[this.pos];
    if (quote === '"' || quote === "'") {
      const start = this.pos++;
      let value = '';
      while (!this.atEnd()) {
        const ch = this.text[this.pos++]!;
        if (ch === quote) return value;
        const next = this.text[this.pos];
        if (ch === '\\' && (next === quote || next === '\\')) {
          value += next;
          this.pos++;
        } else value += ch;
      }
      this.fail(`unterminated string: the ${quote} has no closing ${quote}`, start);
    }
    const start = this.pos;
    while (!this.atEnd() && !KEYWORD_END.test(this.text[this.pos]!)) this.pos++;
    if (this.pos === start) this.fail(`expected a value after ${op}`);
    return this.text.slice(start, this.pos);
  }

  private normalise(field: FilterField, raw: string, at: number): string | number {
    switch (field) {
      case 'status': {
        if (/^[1-5]xx$/i.test(raw)) return raw.toLowerCase();
        if (/^\d{1,4}$/.test(raw)) return Number(raw);
        return this.fail(`status takes a status code such as 404 or a class such as 4xx, not "${raw}"`, at);
      }
      case 'latency': {
        const match = /^(\d+(?:\.\d+)?)(ms|s)?$/i.exec(raw);
        if (!match) return this.fail(`latency takes milliseconds such as 250, 250ms or 1.5s, not "${raw}"`, at);
        const n = Number(match[1]) * (match[2]?.toLowerCase() === 's' ? 1000 : 1);
        return Number.isFinite(n) ? n : this.fail('latency is too large', at);
      }
      case 'level':
        return this.member('level', LEVELS, raw, at);
      case 'method':
        return this.member('method', HTTP_METHODS, raw, at);
      case 'protocol':
        return this.member('protocol', PROTOCOLS, raw, at);
      case 'domain':
        // Domains are stored lower case (docs/decisions.md §5.7), so any spelling of one finds it.
        return asciiLower(raw);
      default:
        return raw;
    }
  }

  private member(field: string, values: readonly string[], raw: string, at: number): string {
    const upper = raw.toUpperCase();
    if (!values.includes(upper)) this.fail(`${field} is one of ${values.join(', ')}, not "${raw}"`, at);
    return upper;
  }

  /** Consumes `word` when it stands alone (followed by a space, a parenthesis or the end). */
  private keyword(word: string): boolean {
    this.skipSpace();
    const end = this.pos + word.length;
    if (asciiLower(this.text.slice(this.pos, end)) !== word) return false;
    if (end < this.text.length && !KEYWORD_END.test(this.text[end]!)) return false;
    this.pos = end;
    return true;
  }

  private skipSpace(): void {
    while (!this.atEnd() && /\s/.test(this.text[this.pos]!)) this.pos++;
  }

  private atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  private peekWord(): string {
    const rest = this.text.slice(this.pos);
    return /^[^\s()]+/.exec(rest)?.[0] ?? rest.slice(0, 1);
  }

  private fail(reason: string, at: number = this.pos): never {
    throw new FilterSyntaxError(reason, at + 1, this.text);
  }
}
