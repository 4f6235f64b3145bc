import { type Compilable, CompiledQuery } from 'kysely';

/**
 * Statements Kysely compiles once a shape, then only given their values (decisions §20.29).
 *
 * A statement built with Kysely's builder and compiled again for every group costs the daemon more
 * than its values do: the builder copies its nodes at every call, and the compiler walks them all.
 * Its text depends only on the statement's shape: how many values it has, and which of them are
 * `null`, `undefined` or booleans (Kysely writes those into the text, `is null`, `default`,
 * `true`), never on the other values, which become parameters in the order they are met. So the
 * statement is built once a shape with a marker in place of each other value, and each later
 * statement of that shape is the same text with the markers' places filled with its own values:
 * the same text and the same parameters as Kysely would compile (`shaped.test.ts` holds that).
 *
 * Only for a Kysely without plugins (a plugin, as SQLite's stored-values one, may rewrite values
 * as it compiles): PostgreSQL's. The text stays in the daemon; PostgreSQL still parses it each time
 * (no named statement, §20.22).
 */
class Slot {
  constructor(readonly at: number) {}
}

interface Template {
  readonly sql: string;
  /** A Slot where the value is the input's, else the constant Kysely compiled there. */
  readonly parameters: readonly unknown[];
}

/** The values Kysely writes into a statement's text rather than as parameters, kept as they are. */
const inText = (value: unknown): boolean => value === null || value === undefined || typeof value === 'boolean';

/** The shape of a statement's values: their number and which of them Kysely writes into its text. */
function shapeOf(values: readonly unknown[]): string {
  let shape = `${values.length}:`;
  for (const v of values)
    shape += v === null ? 'n' : v === undefined ? 'u' : v === true ? 't' : v === false ? 'f' : '.';
  return shape;
}

/**
 * How a statement's build reads its values: `at(i, value)` is `value`, the statement's i-th, where
 * Kysely writes it into the text, and a marker of its place otherwise.
 */
export type StandIn = <V>(i: number, value: V) => V;

export class ShapedStatements {
  readonly #templates = new Map<string, Template>();

  /** At most this many shapes are kept; past it the cache starts again (group sizes are few). */
  constructor(private readonly limit = 512) {}

  /**
   * The statement `build` makes of `values`, as Kysely would compile it: built and compiled once
   * for `name` and the values' shape. `build` must take each value through `at(i, values[i])` and
   * use no other input that changes its text.
   */
  statement<R>(name: string, values: readonly unknown[], build: (at: StandIn) => Compilable<R>): Compilable<R> {
    const key = `${name}/${shapeOf(values)}`;
    let template = this.#templates.get(key);
    if (!template) {
      const at: StandIn = (i, value) =>
        // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- a marker stands for any value in the compile; it never reaches the database (each is replaced below)
        inText(value) ? value : (new Slot(i) as unknown as typeof value);
      const compiled = build(at).compile();
      template = { sql: compiled.sql, parameters: compiled.parameters };
      if (this.#templates.size >= this.limit) this.#templates.clear();
      this.#templates.set(key, template);
    }
    const parameters = template.parameters.map((p) => (p instanceof Slot ? values[p.at] : p));
    const { sql } = template;
    return { compile: () => CompiledQuery.raw(sql, parameters) };
  }
}
