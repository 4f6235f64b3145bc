import {
  BinaryOperationNode,
  ColumnNode,
  ColumnUpdateNode,
  type InsertQueryNode,
  type KyselyPlugin,
  type OperationNode,
  OperationNodeTransformer,
  PrimitiveValueListNode,
  type QueryId,
  ReferenceNode,
  SelectionNode,
  ValueListNode,
  ValueNode,
  ValuesNode,
  type ValuesItemNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';

/**
 * How ids are stored where the database has no compact type for them (issue 14, docs/storage.md
 * "Ids"). SQLite has no `uuid`: a 36-character UUID took 37 bytes in every row and index entry
 * that holds it (an entry's own id is in five). There, ids are stored as their 16 bytes (a blob);
 * PostgreSQL keeps its text. Repositories, the wire and the tests see strings either way: this
 * codec turns a value into its stored form on the way in and back on the way out, as a driver's
 * type parsers do. Blobs are the one SQL type no column affinity converts.
 *
 * Only values of the right shape change: a hyphenated UUID (in any case; it reads back lower
 * case) in an id column. Anything else (an id a test made up) is stored as it is, and compares as
 * SQLite compares mixed types (all text before all blobs): every id Tapline makes has that shape.
 * Ordering is unchanged, since a blob sorts byte by byte as its lower-case hex text does.
 */
export interface StoredValues {
  /** The stored form of `value` written to or compared with `column`. */
  encode(column: string, value: unknown): unknown;
  /** Rows read back by one query (all of one shape), ids turned into their wire form in place. */
  decodeRows(rows: UnknownRow[]): void;
  /** The text `value`, stored in `column`, reads back as (a gathered lookup matches rows to keys by it). */
  readBack(column: string, value: string): string;
}

/** Columns holding UUIDs (every table's). `traffic_user_id` is the app's own text and stays as it is. */
const ID_COLUMNS = new Set([
  'id',
  'traffic_source_id',
  'domain_id',
  'pathname_id',
  'http_traffic_id',
  'user_id',
  'source_id',
  'webhook_id',
  'delivery_id',
  'summary_id',
  'request_id',
  'response_id',
  'route_id',
  'rule_id',
]);
/**
 * Result columns read back as ids: the id columns, and any `…_id` alias of one. Decided by name,
 * never by a blob's size alone: a compressed payload can be 16 bytes too.
 */
const isIdKey = (key: string) => ID_COLUMNS.has(key) || key.endsWith('_id');

/** Any case, as the contract's `z.uuid()` takes it (a `Last-Event-ID` typed by hand); stored as the same bytes. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const uuidBytes = (id: string): Buffer => Buffer.from(id.replaceAll('-', ''), 'hex');

const HEX_DIGITS = Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
const HYPHEN = 0x2d;
/** The text is spelled into this and read as one flat string: a list page decodes 300 ids. */
const spelled = new Uint8Array(36);
const ascii = new TextDecoder('latin1');

/**
 * Lower-case hyphenated text of 16 bytes. Written byte by byte into one buffer and decoded once: a
 * template left a string of pieces for JSON.stringify to join (docs/performance.md#reads-and-indexes).
 */
export function uuidText(b: Uint8Array): string {
  let at = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) spelled[at++] = HYPHEN;
    const byte = b[i] ?? 0;
    spelled[at++] = HEX_DIGITS[byte >> 4] ?? 0;
    spelled[at++] = HEX_DIGITS[byte & 15] ?? 0;
  }
  return ascii.decode(spelled);
}

/** How db/prepared.ts's template sentinels begin (no input reaches SQL with a NUL: nul.test.ts). */
export const SENTINEL_PREFIX = '\u0000tapline-parameter';

/** What prepared statements bind in place of a template's sentinel: the sentinel, and how its column stores values. */
export class StoredSlot {
  constructor(
    readonly sentinel: string,
    readonly encode: (value: unknown) => unknown,
  ) {}
}

/** A compiled parameter that stands for `sentinel`, and how a value bound there is stored. */
export function slotOf(parameter: unknown, sentinel: string): ((value: unknown) => unknown) | undefined {
  if (parameter === sentinel) return (value) => value;
  return parameter instanceof StoredSlot && parameter.sentinel === sentinel ? parameter.encode : undefined;
}

/** PostgreSQL: its text ids are stored as they are. */
export const plainValues: StoredValues = {
  encode: (_column, value) => value,
  decodeRows: () => undefined,
  readBack: (_column, value) => value,
};

export const compactValues: StoredValues = {
  // Stored as its 16 bytes, a UUID reads back lower case, whatever its case was.
  readBack: (column, value) => (ID_COLUMNS.has(column) && UUID.test(value) ? value.toLowerCase() : value),
  encode(column, value) {
    if (typeof value !== 'string') return value;
    return ID_COLUMNS.has(column) && UUID.test(value) ? uuidBytes(value) : value;
  },
  decodeRows(rows) {
    // The driver makes a new object per row, and nothing else holds it yet: changed in place.
    const keys = Object.keys(rows[0] ?? {}).filter(isIdKey);
    for (const row of rows) {
      for (const key of keys) {
        const value = row[key];
        if (value instanceof Uint8Array && value.byteLength === 16) row[key] = uuidText(value);
      }
    }
  },
};

/** Node kinds that cannot hold a value: names of tables and columns, and references to them. */
const VALUE_FREE = new Set<OperationNode['kind']>([
  'ReferenceNode',
  'ColumnNode',
  'TableNode',
  'IdentifierNode',
  'SchemableIdentifierNode',
  'SelectAllNode',
]);

/** A node that certainly binds no value: a name, or a selected name. */
const bindsNothing = (node: OperationNode): boolean =>
  VALUE_FREE.has(node.kind) || (SelectionNode.is(node) && VALUE_FREE.has(node.selection.kind));

/** The column a reference or column node names, if it is one. */
function columnOf(node: OperationNode): string | undefined {
  if (ColumnNode.is(node)) return node.column.name;
  if (ReferenceNode.is(node) && ColumnNode.is(node.column)) return node.column.column.name;
  return undefined;
}

/** Rewrites the values bound to id columns into their stored form. */
class StoredValuesTransformer extends OperationNodeTransformer {
  constructor(private readonly values: StoredValues) {
    super();
  }

  /**
   * Nodes that bind no value are kept as they are: the transformer copies every node it walks,
   * and the 16 selected columns of a list page were most of the walk.
   */
  protected override transformNodeImpl<T extends OperationNode>(node: T, queryId?: QueryId): T {
    return bindsNothing(node) ? node : super.transformNodeImpl(node, queryId);
  }

  /** `node` (a value, a list of values) as stored in `column`; other nodes (columns, subqueries) as they are. */
  private encodeNode(column: string, node: OperationNode): OperationNode {
    if (ValueNode.is(node)) return node.immediate ? node : ValueNode.create(this.slotOrValue(column, node.value));
    if (PrimitiveValueListNode.is(node)) return this.encodeList(column, node);
    if (ValueListNode.is(node)) return ValueListNode.create(node.values.map((v) => this.encodeNode(column, v)));
    return node;
  }

  private encodeList(column: string, node: PrimitiveValueListNode): PrimitiveValueListNode {
    return PrimitiveValueListNode.create(node.values.map((v) => this.slotOrValue(column, v)));
  }

  private slotOrValue(column: string, value: unknown): unknown {
    // db/prepared.ts compiles templates with sentinel strings and binds values later: it learns the column here.
    if (typeof value === 'string' && value.startsWith(SENTINEL_PREFIX))
      return new StoredSlot(value, (v) => this.values.encode(column, v));
    return this.values.encode(column, value);
  }

  protected override transformBinaryOperation(node: BinaryOperationNode): BinaryOperationNode {
    const done = super.transformBinaryOperation(node);
    const left = columnOf(done.leftOperand);
    if (left)
      return BinaryOperationNode.create(done.leftOperand, done.operator, this.encodeNode(left, done.rightOperand));
    const right = columnOf(done.rightOperand);
    if (right)
      return BinaryOperationNode.create(this.encodeNode(right, done.leftOperand), done.operator, done.rightOperand);
    return done;
  }

  protected override transformColumnUpdate(node: ColumnUpdateNode): ColumnUpdateNode {
    const done = super.transformColumnUpdate(node);
    const column = columnOf(done.column);
    return column ? ColumnUpdateNode.create(done.column, this.encodeNode(column, done.value)) : done;
  }

  protected override transformInsertQuery(node: InsertQueryNode): InsertQueryNode {
    const done = super.transformInsertQuery(node);
    const columns = done.columns?.map(columnOf) ?? [];
    if (!done.values || !ValuesNode.is(done.values)) return done;
    const encodeRow = (row: ValuesItemNode): ValuesItemNode => {
      if (PrimitiveValueListNode.is(row))
        return PrimitiveValueListNode.create(row.values.map((v, i) => this.slotOrValueAt(columns[i], v)));
      return ValueListNode.create(row.values.map((v, i) => (columns[i] ? this.encodeNode(columns[i], v) : v)));
    };
    return { ...done, values: ValuesNode.create(done.values.values.map(encodeRow)) };
  }

  private slotOrValueAt(column: string | undefined, value: unknown): unknown {
    return column ? this.slotOrValue(column, value) : value;
  }
}

/** The Kysely plugin of a database whose values are stored compactly (SQLite). */
export function storedValuesPlugin(values: StoredValues): KyselyPlugin {
  const transformer = new StoredValuesTransformer(values);
  return {
    transformQuery: ({ node }: PluginTransformQueryArgs): RootOperationNode => transformer.transformNode(node),
    transformResult: ({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> => {
      values.decodeRows(result.rows);
      return Promise.resolve(result);
    },
  };
}
