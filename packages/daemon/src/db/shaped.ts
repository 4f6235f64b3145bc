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
 * the same text and the same parameters as Kysely would compile (`route-stats/shaped-statements.test.ts` holds that).
 *
 * Only for a Kysely without plugins (a plugin, as SQLite's stored-values one, may rewrite values
 * as it compiles, which `templateOf` refuses): PostgreSQL's. The text stays in the daemon, at most
 * `limit` shapes a statement name of up to MOST_VALUES values each; PostgreSQL still parses it each
 * time (no named statement, §20.22).
 */
class Slot {
  constructor(readonly at: number) {}
}

/**
 * A statement's text and where its parameters come from: `from[j]` is the index of the input's value
 * that parameter j takes, or -1 where Kysely compiled a constant, kept in `constants`. Positions in
 * a typed array: a marker object a parameter would hold tens of MB across a kind's shapes.
 */
interface Template {
  readonly sql: string;
  readonly from: Int32Array;
  readonly constants: ReadonlyMap<number, unknown>;
}

/** The values Kysely writes into a statement's text rather than as parameters, kept as they are. */
const inText = (value: unknown): boolean => value === null || value === undefined || typeof value === 'boolean';

/**
 * The shape of a statement's values: their number, and the place and kind of those Kysely writes
 * into its text (few: most statements have none). A short flat string, whatever the value count.
 */
function shapeOf(values: readonly unknown[]): string {
  const marks: string[] = [String(values.length)];
  values.forEach((v, i) => {
    if (inText(v)) marks.push(`${i}${v === null ? 'n' : v === undefined ? 'u' : v ? 't' : 'f'}`);
  });
  return marks.join(',');
}

/**
 * How a statement's build reads its values: `at(i, value)` is `value`, the statement's i-th, where
 * Kysely writes it into the text, and a marker of its place otherwise.
 */
export type StandIn = <V>(i: number, value: V) => V;

/** Past this many values a statement is compiled each time: few such groups, and their text is long. */
const MOST_VALUES = 1_024;

export class ShapedStatements {
  /** By statement name, its shapes, the least recently used first. */
  readonly #kinds = new Map<string, Map<string, Template>>();

  /** At most this many shapes are kept a statement name; the least recently used goes first. */
  constructor(private readonly limit = 64) {}

  /**
   * The statement `build` makes of `values`, as Kysely would compile it: built and compiled once
   * for `name` and the values' shape. `build` must take each value through `at(i, values[i])` and
   * use no other input that changes its text.
   */
  statement<R>(
    trx: WithPlugins,
    name: string,
    values: readonly unknown[],
    build: (at: StandIn) => Compilable<R>,
  ): Compilable<R> {
    if (values.length > MOST_VALUES) return build((_i, value) => value);
    let shapes = this.#kinds.get(name);
    if (!shapes) this.#kinds.set(name, (shapes = new Map<string, Template>()));
    const key = shapeOf(values);
    let template = shapes.get(key);
    if (template) {
      shapes.delete(key); // to the back: the most recently used
    } else {
      template = templateOf(trx, name, values, build);
      const oldest = shapes.keys().next();
      if (shapes.size >= this.limit && !oldest.done) shapes.delete(oldest.value);
    }
    shapes.set(key, template);
    const { sql, from, constants } = template;
    const parameters = Array.from(from, (at, j) => (at === -1 ? constants.get(j) : values[at]));
    return { compile: () => CompiledQuery.raw(sql, parameters) };
  }
}

/** What `statement` needs of the executor it compiles for: whether it has plugins. */
export interface WithPlugins {
  getExecutor(): { readonly plugins: readonly unknown[] };
}

/**
 * Compiles `build` once with a marker for every value not written into the text. Refused rather
 * than sent: an executor with plugins (one that rewrites values as it compiles, as SQLite's
 * stored-values one does, would rewrite the markers), and a build that compiles a value twice (its
 * copies could not both be filled in).
 */
function templateOf<R>(
  trx: WithPlugins,
  name: string,
  values: readonly unknown[],
  build: (at: StandIn) => Compilable<R>,
): Template {
  if (trx.getExecutor().plugins.length > 0) throw new Error(`${name}: compiled once a shape only without plugins`);
  const at: StandIn = (i, value) =>
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- a marker stands for any value in the compile; it never reaches the database (each is replaced below)
    inText(value) ? value : (new Slot(i) as unknown as typeof value);
  const compiled = build(at).compile();
  const from = new Int32Array(compiled.parameters.length);
  const constants = new Map<number, unknown>();
  const seen = new Set<number>();
  compiled.parameters.forEach((p, j) => {
    if (p instanceof Slot) {
      if (seen.has(p.at)) throw new Error(`${name}: value ${p.at} is compiled twice`);
      seen.add(p.at);
      from[j] = p.at;
    } else {
      from[j] = -1;
      constants.set(j, p);
    }
  });
  return { sql: compiled.sql, from, constants };
}
