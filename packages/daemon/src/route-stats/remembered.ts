import type { StatsGrouping } from '@tapline/shared';
import type { Store } from '../db/open.js';
import { blockKey, blocksOf, CLOSED_MS, ClosedBlocks, epochOf } from './closed-blocks.js';
import { dimsKey, idKey, mergedRows, type Row, segmentRows } from './rows.js';
import { binsOf } from './sketch.js';
import { iso, type Segment, segmentsOf, type Window } from './window.js';

const MINUTE = 60_000;

/** A row's object, its ids and its arrays, roughly; a bin's two numbers take 16 more. */
const ROW_BYTES = 400;

/** What rows take, roughly; no fewer than one row's, so that an empty block counts too. */
const rowsBytes = (rows: readonly Row[]): number =>
  Math.max(
    ROW_BYTES,
    rows.reduce((n, r) => n + ROW_BYTES + 8 * ((r.bins?.stores[0].length ?? 0) + (r.bins?.stores[1].length ?? 0)), 0),
  );

/**
 * A remembered block: its rows per route, method, domain and status class, each sketch read into
 * its bins once, not at every read; and, made at the first read that asks, the same rows summed
 * per group of a `by`, which is all a read without `where` or `route` needs of it (a third of the
 * rows: status classes and domains are one group there).
 */
class Block {
  private readonly parts = new Map<StatsGrouping, Row[]>();
  readonly rows: readonly Row[];

  constructor(stored: readonly Row[], backend: Store['dialect']['backend']) {
    const summed = backend === 'sqlite' ? stored : mergedRows(stored, dimsKey);
    this.rows = summed.map((row) => (row.bins ? row : { ...row, sketch: null, bins: binsOf(row.sketch) }));
  }

  partsBy(by: StatsGrouping): readonly Row[] {
    let parts = this.parts.get(by);
    if (!parts) this.parts.set(by, (parts = mergedRows(this.rows, (row) => idKey(by, row))));
    return parts;
  }

  /**
   * What it takes, roughly (`rowsBytes`): three times its rows, for them and the parts of up to
   * two groupings (fewer rows each).
   */
  get bytes(): number {
    return 3 * rowsBytes(this.rows);
  }
}

/** A minute of a window's last part as read: its rows, and the entries they count. */
interface OpenMinute {
  readonly count: number;
  readonly block: Block;
}

/**
 * What is remembered per open database (one per daemon; tests open several): blocks, the closed
 * part of a window summed per group of a `by`, which the refreshes of one window within a minute
 * share (its closed part moves a minute at a time), and the minutes of the last part as last read.
 */
interface Remembered {
  readonly blocks: ClosedBlocks<Block>;
  readonly windows: ClosedBlocks<readonly Row[]>;
  readonly minutes: ClosedBlocks<OpenMinute>;
}
const rememberedBy = new WeakMap<Store['db'], Remembered>();
const WINDOWS_BUDGET = 8 * 1024 * 1024;
const MINUTES_BUDGET = 8 * 1024 * 1024;

function rememberedOf(db: Store['db']): Remembered {
  let remembered = rememberedBy.get(db);
  if (!remembered)
    rememberedBy.set(
      db,
      (remembered = {
        blocks: new ClosedBlocks<Block>(),
        windows: new ClosedBlocks<readonly Row[]>(WINDOWS_BUDGET),
        minutes: new ClosedBlocks<OpenMinute>(MINUTES_BUDGET),
      }),
    );
  return remembered;
}

/** A block's rows a read takes: summed per group of its `by`, or of its `route` (every route without). */
function blockRows(block: Block, routeId: string | undefined, by: StatsGrouping | undefined, into: Row[]): void {
  if (by !== undefined) for (const row of block.partsBy(by)) into.push(row);
  else for (const row of block.rows) if (routeId === undefined || row.route_id === routeId) into.push(row);
}

/** What a read asks of remembered rows, and where it notes what it read, to keep once its reads are done. */
interface Reading {
  readonly store: Store;
  readonly sourceId: string;
  readonly routeId: string | undefined;
  readonly by: StatsGrouping | undefined;
  readonly epoch: number;
  readonly remembered: Remembered;
  readonly keep: (() => void)[];
}

/** A segment's rows read from the database as a block to keep, every route's. */
const readBlock = async (r: Reading, segment: Segment): Promise<Block> =>
  new Block(await segmentRows(r.store, r.sourceId, segment, undefined, true), r.store.dialect.backend);

/** The closed part of a window, `since` to `cut`, cut into `blocks` (closed-blocks.ts). */
async function closedRows(r: Reading, since: number, cut: number, blocks: readonly Segment[], into: Row[]) {
  const { blocks: kept, windows } = r.remembered;
  const whole = r.by === undefined ? undefined : `${r.by} ${since} ${cut}`;
  const summed = whole === undefined ? undefined : windows.get(r.sourceId, r.epoch, whole);
  if (summed) {
    for (const row of summed) into.push(row);
    return;
  }
  const closed: Row[] = [];
  for (const segment of blocks) {
    let block = kept.get(r.sourceId, r.epoch, blockKey(segment));
    if (!block) {
      const read = await readBlock(r, segment);
      r.keep.push(() => kept.set(r.sourceId, r.epoch, blockKey(segment), read, read.bytes));
      block = read;
    }
    blockRows(block, r.routeId, r.by, closed);
  }
  const { by } = r;
  const merged = by === undefined ? closed : mergedRows(closed, (row) => idKey(by, row));
  for (const row of merged) into.push(row);
  if (whole !== undefined) r.keep.push(() => windows.set(r.sourceId, r.epoch, whole, merged, rowsBytes(merged)));
}

/**
 * Each minute of a part and the entries its rows count. Ingest only adds to a minute's rows, and
 * each entry adds one to a count, so a minute whose count is the one it had when it was read holds
 * what it held then, unless a rule's move, which raises the source's counter, changed it.
 */
async function minuteCounts({ db }: Store, sourceId: string, part: Segment): Promise<Map<number, number>> {
  const rows = await db
    .selectFrom('route_stats')
    .select((eb) => ['minute', eb.fn.sum<number | string>('count').as('n')])
    .where('traffic_source_id', '=', sourceId)
    .where('minute', '>=', iso(part.since))
    .where('minute', '<', iso(part.until))
    .groupBy('minute')
    .execute();
  return new Map(rows.map((row) => [Date.parse(row.minute), Number(row.n)]));
}

/**
 * The last minutes of a window (decisions §21.10), which ingest still adds to: a minute's rows are
 * read again only when its count of entries moved since this daemon last read them.
 */
async function openRows(r: Reading, part: Segment, into: Row[]): Promise<void> {
  for (const [minute, count] of await minuteCounts(r.store, r.sourceId, part)) {
    const name = String(minute);
    let kept = r.remembered.minutes.get(r.sourceId, r.epoch, name);
    if (kept?.count !== count) {
      const block = await readBlock(r, { since: minute, until: minute + MINUTE, span: 1 });
      const read = { count: block.rows.reduce((n, row) => n + Number(row.count), 0), block };
      r.keep.push(() => r.remembered.minutes.set(r.sourceId, r.epoch, name, read, block.bytes));
      kept = read;
    }
    blockRows(kept.block, r.routeId, r.by, into);
  }
}

/**
 * The rows of a window's totals (closed-blocks.ts, docs/decisions.md §21.9 and §21.10): the part
 * that ended `CLOSED_MS` before `now` from the blocks this daemon remembers, the last minutes as
 * they were last read if their counts did not move; each only if the source's counter of late
 * writes is what it was when they were read (else read again, and kept if the counter did not
 * move meanwhile). Blocks hold every route: a `route` filters them. `by`, for a read without
 * `where` or `route`: a block gives its rows summed per group.
 */
export async function totalsRows(
  store: Store,
  sourceId: string,
  window: Window,
  routeId: string | undefined,
  by: StatsGrouping | undefined,
  now: number,
  into: Row[],
): Promise<void> {
  const cut = Math.min(window.until, Math.max(window.since, Math.floor(now / MINUTE) * MINUTE - CLOSED_MS));
  const epoch = await epochOf(store.db, sourceId);
  const r: Reading = { store, sourceId, routeId, by, epoch, remembered: rememberedOf(store.db), keep: [] };
  const blocks = segmentsOf({ since: window.since, until: cut }).flatMap(blocksOf);
  if (blocks.length > 0) await closedRows(r, window.since, cut, blocks, into);
  for (const part of segmentsOf({ since: cut, until: window.until })) {
    if (part.span === 1) await openRows(r, part, into);
    else for (const row of await segmentRows(store, sourceId, part, routeId, true)) into.push(row);
  }
  if (r.keep.length > 0 && (await epochOf(store.db, sourceId)) === epoch) for (const keep of r.keep) keep();
}
