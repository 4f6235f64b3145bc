import { asciiLower, LEVEL_RANK, LEVELS } from '@tapline/shared/lean';
import type { FilterComparison, FilterExpr } from '@tapline/shared';
import { type Expression, type ExpressionBuilder, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { SqlDialect } from '../db/dialect.js';
import type { DB } from '../db/schema.js';
import type { HttpTrafficTable } from './table.js';

/**
 * The filter language compiled to SQL that SQLite and PostgreSQL read alike (`substr`, `length`,
 * `LIKE … ESCAPE`, `coalesce`), but for what the dialect spells (db/dialect.ts): header lookups
 * in stored JSON, and ASCII lower-casing.
 */
type TrafficEb = ExpressionBuilder<DB & { t: HttpTrafficTable }, 't'>;
type Condition = Expression<SqlBool>;
type Text = Expression<string> | RawBuilder<string>;

/** `%`, `_` and the escape character itself are literal in a `~` search. */
const likeContains = (needle: string) => `%${asciiLower(needle).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** One text against `= ^= ~` (`!=` is `not =`, composed by the caller). Values are bound, always. */
function textTest(dialect: SqlDialect, op: FilterComparison['op'], value: string): (text: Text) => Condition {
  if (op === '^=') return (text) => sql<SqlBool>`substr(${text}, 1, length(${value})) = ${value}`;
  if (op === '~') return (text) => sql<SqlBool>`${dialect.asciiLower(text)} like ${likeContains(value)} escape '\\'`;
  return (text) => sql<SqlBool>`${text} = ${value}`;
}

/** `!=` holds when `=` does not; the other text operators test directly. */
function negatable(
  eb: TrafficEb,
  op: FilterComparison['op'],
  build: (op: FilterComparison['op']) => Condition,
): Condition {
  return op === '!=' ? eb.not(build('=')) : build(op);
}

const ORDER_OP = { '=': '=', '!=': '<>', '>': '>', '>=': '>=', '<': '<', '<=': '<=' } as const;
type OrderOp = keyof typeof ORDER_OP;

/** The parser gives ordered fields only these operators (ast.ts FIELD_OPERATORS); anything else is a bug. */
function orderOp(op: FilterComparison['op']): OrderOp {
  if (op === '^=' || op === '~') throw new Error(`operator ${op} on an ordered field`);
  return op;
}

function statusClass(eb: TrafficEb, op: OrderOp, cls: string): Condition {
  const min = Number(cls[0]) * 100;
  const max = min + 99;
  switch (op) {
    case '=':
      return eb.and([eb('t.status', '>=', min), eb('t.status', '<=', max)]);
    case '!=':
      return eb.or([eb('t.status', '<', min), eb('t.status', '>', max)]);
    case '>':
      return eb('t.status', '>', max);
    case '>=':
      return eb('t.status', '>=', min);
    case '<':
      return eb('t.status', '<', min);
    case '<=':
      return eb('t.status', '<=', max);
  }
}

const never = sql<SqlBool>`1 = 0`;

export interface CompileOptions {
  /** The source whose rows are filtered: path and domain look-ups stay within its own names. */
  readonly sourceId: string;
  /** How the engine walks stored JSON headers and lower-cases text. */
  readonly dialect: SqlDialect;
}

function comparison(eb: TrafficEb, c: FilterComparison, options: CompileOptions): Condition {
  const { dialect } = options;
  const value = String(c.value);
  switch (c.field) {
    case 'status':
      return typeof c.value === 'number'
        ? eb('t.status', ORDER_OP[orderOp(c.op)], c.value)
        : statusClass(eb, orderOp(c.op), value);
    case 'latency':
      return eb('t.elapsed_time', ORDER_OP[orderOp(c.op)], Number(c.value));
    case 'level': {
      const rank = LEVEL_RANK[value] ?? -1;
      const op = ORDER_OP[orderOp(c.op)];
      const test = {
        '=': (r: number) => r === rank,
        '<>': (r: number) => r !== rank,
        '>': (r: number) => r > rank,
        '>=': (r: number) => r >= rank,
        '<': (r: number) => r < rank,
        '<=': (r: number) => r <= rank,
      }[op];
      const levels = LEVELS.filter((l) => test(LEVEL_RANK[l] ?? -1));
      return levels.length === 0 ? never : eb('t.level', 'in', levels);
    }
    // Compared as text: the parser checks the value's spelling, not that it names a stored member.
    case 'method':
      return eb(sql<string>`${eb.ref('t.method')}`, ORDER_OP[orderOp(c.op)], value);
    case 'protocol':
      return eb(sql<string>`${eb.ref('t.protocol')}`, ORDER_OP[orderOp(c.op)], value);
    case 'user':
      // Absent reads as empty text, as in the predicate: `user=""` is anonymous traffic.
      return negatable(eb, c.op, (op) =>
        textTest(dialect, op, value)(sql<string>`coalesce(${sql.ref('t.traffic_user_id')}, '')`),
      );
    case 'path':
      // Names live in their own small tables; look the ids up once rather than join every row.
      return negatable(eb, c.op, (op) =>
        eb(
          't.pathname_id',
          'in',
          eb
            .selectFrom('pathnames as fp')
            .select('fp.id')
            .where('fp.traffic_source_id', '=', options.sourceId)
            .where(textTest(dialect, op, value)(sql.ref('fp.value'))),
        ),
      );
    case 'domain':
      return negatable(eb, c.op, (op) =>
        eb(
          't.domain_id',
          'in',
          eb
            .selectFrom('domains as fd')
            .select('fd.id')
            .where('fd.traffic_source_id', '=', options.sourceId)
            .where(textTest(dialect, op, value)(sql.ref('fd.value'))),
        ),
      );
    case 'route':
      // An entry the route backfill has not reached yet (route_id null) matches no route.
      return negatable(eb, c.op, (op) =>
        eb.and([
          eb('t.route_id', 'is not', null),
          eb(
            't.route_id',
            'in',
            eb
              .selectFrom('routes as fr')
              .select('fr.id')
              .where('fr.traffic_source_id', '=', options.sourceId)
              .where(textTest(dialect, op, value)(sql.ref('fr.template'))),
          ),
        ]),
      );
    case 'header':
      return negatable(eb, c.op, (op) =>
        eb.or(
          (['t.request_headers', 't.response_headers'] as const).map((headers) =>
            dialect.headerMatches(dialect.payloadText(sql.ref(headers)), c.header ?? '', textTest(dialect, op, value)),
          ),
        ),
      );
    case 'body':
      // The explicit slow scan: the JSON text of both bodies, decoded row by row, no body being empty text.
      return negatable(eb, c.op, (op) =>
        eb.or(
          (['t.request_body', 't.response_body'] as const).map((body) =>
            textTest(dialect, op, value)(sql<string>`coalesce(${dialect.payloadText(sql.ref(body))}, '')`),
          ),
        ),
      );
  }
}

/**
 * A parsed filter as a WHERE condition on `http_traffic as t`, meaning exactly what
 * `compilePredicate` means in memory. No leaf is ever NULL (absent values read as empty text),
 * so `not` is plain two-valued negation.
 */
export function compileFilter(eb: TrafficEb, expr: FilterExpr, options: CompileOptions) {
  return eb.and([compileNode(eb, expr, options)]);
}

function compileNode(eb: TrafficEb, expr: FilterExpr, options: CompileOptions): Condition {
  switch (expr.type) {
    case 'compare':
      return comparison(eb, expr, options);
    case 'not':
      return eb.not(compileNode(eb, expr.operand, options));
    case 'and':
      return eb.and(expr.operands.map((o) => compileNode(eb, o, options)));
    case 'or':
      return eb.or(expr.operands.map((o) => compileNode(eb, o, options)));
  }
}
