import type { TrafficSource } from '@tapline/shared';
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.js';
import { isoNow, newId } from '../clock.js';
import type { Deps } from '../deps.js';
import type { IngestHook, StoredEntry } from '../stream/bus.js';
import type { Sequenced } from '../stream/stream-repo.js';
import type { PreparedRecord } from './prepare.js';
import { type IdCache, resolveNames } from '../http-traffic/names.js';
import { createTrafficWriter, type TrafficWriter } from '../http-traffic/writer.js';
import { createSqliteTrafficWriter } from '../http-traffic/sqlite-writer.js';
import { createRouteResolver, type RouteResolver } from '../route-stats/resolve.js';
import { heldRulesOf } from '../route-stats/rules-repo.js';
import type { StatInput } from '../route-stats/rollup.js';
import type { StatsMerge } from '../route-stats/writer.js';
import { groupLength, groupRows, recoveryOf, RulesChanged, type Waiting } from './group.js';

export interface Ingest {
  /** Stores one request's records, all or none; resolves with their entries once committed. */
  store(source: TrafficSource, records: readonly PreparedRecord[]): Promise<StoredEntry[]>;
  /** Records accepted and waiting for the next transaction (`/metrics`' queue depth). */
  readonly queuedRecords: number;
}

export interface IngestDeps extends Pick<Deps, 'db' | 'dialect' | 'clock' | 'bus'> {
  /** Run inside every ingest transaction (the webhook outbox writes its rows there). */
  readonly hooks: readonly IngestHook[];
  /**
   * Adds the group's entries to the per-route statistics, in its transaction (off with `--no-stats`),
   * in route-stats/writer.ts' three steps (`lockStats`).
   */
  readonly stats?: ((trx: Transaction<DB>, inputs: readonly StatInput[]) => Promise<StatsMerge>) | undefined;
}

/**
 * Records waiting before a second group starts beside the one in flight (PostgreSQL): a batch of
 * a thousand takes its group's event loop some 15 ms before its first lock that the first group
 * may hold, worth overlapping; the composes of 50 clients, a few dozen records a group, keep
 * gathering into one group as before (decisions §20.42).
 */
export const OVERLAP_RECORDS = 500;

/** Bounds the id cache; a busy source has a few hundred paths. */
const MAX_CACHED_IDS = 20_000;

/**
 * Group commit: every compose that arrives in one turn of the event loop shares one transaction.
 * A commit writes every touched page to the WAL, which was the largest single cost of a compose;
 * with 50 clients at once it is now paid once per group. Each request still answers only after
 * its own records are committed. If a group fails, its requests are retried one by one so that
 * one request's failure never fails another's; if the database failed, each request of the group
 * is refused with that (a 503). The bus hears of entries after they commit, with
 * their stream numbers.
 */
export function createIngest(deps: IngestDeps): Ingest {
  const parts: GroupParts = {
    deps,
    writer: deps.dialect.statements
      ? createSqliteTrafficWriter(deps.dialect, deps.dialect.statements)
      : createTrafficWriter(deps.dialect.payloads, {
          copy: deps.dialect.backend === 'postgres',
          joined: deps.dialect.backend === 'postgres',
        }),
    cache: { domains: new Map(), pathnames: new Map() },
    routes: createRouteResolver(),
    rules: new Map(),
  };
  let waiting: Waiting[] = [];
  /** The records of `waiting`, kept as they come and go: every request asks while a group is in flight. */
  let waitingRecords = 0;
  let inFlight = 0;
  // SQLite has one writer: a second transaction would only wait for the first one's lock.
  const maxInFlight = deps.dialect.concurrentWriters ? 2 : 1;

  // Replaced, never cleared: a group in flight keeps the ids it skipped names by (decisions §20.42).
  function forgetIds(): void {
    parts.cache = { domains: new Map(), pathnames: new Map() };
    parts.routes.forget();
    parts.rules.clear();
  }

  /** `afresh`: run again after its failure forgot the cached ids, which it does once. */
  async function run(group: Waiting[], conflicts = 0, afresh = false): Promise<void> {
    if (parts.cache.domains.size + parts.cache.pathnames.size > MAX_CACHED_IDS) forgetIds();
    // The ids this group skips names by: another group's commit may add to them meanwhile, ids
    // just checked by that group's own foreign keys.
    const ids = parts.cache;
    // Once run afresh it started from an empty cache, as one group in flight left it; what another
    // group committed since is not what made the first run fail, so it goes afresh once.
    const cached = !afresh && ids.domains.size + ids.pathnames.size > 0;
    let stored: { results: StoredEntry[][]; committed: Sequenced[] };
    try {
      stored = await storeGroup(parts, ids, group);
    } catch (error) {
      const recovery = recoveryOf(error, conflicts, cached, group.length);
      if (recovery === 'retry') return run(group, conflicts + 1, afresh);
      if (recovery === 'refuse-all') return group.forEach((item) => item.reject(error));
      forgetIds();
      if (recovery === 'afresh') return run(group, conflicts, true);
      if (recovery === 'refuse') return group[0]?.reject(error);
      for (const item of group) await run([item], conflicts);
      return;
    }
    // Committed: nothing from here on may send the group to a retry, which would store it again.
    group.forEach((item, i) => item.resolve(stored.results[i] ?? []));
    deps.bus.publish(stored.committed);
  }

  /**
   * One group in flight at a time: what arrives meanwhile waits and goes, together, into the next
   * transaction. Concurrent groups of composes gained nothing (they queue on the count rows and the
   * stream counter, which every ingest transaction locks until it commits) and made the groups tiny;
   * under load a group is every request that arrived during the previous commit. On PostgreSQL a
   * second group starts beside the one in flight once OVERLAP_RECORDS wait (large batches): its
   * names, routes, rows and statistics' inputs are made while the first one's statements run,
   * and it waits only for rows the first one holds (the same new names, count rows, statistics'
   * rows) and for the stream counter, taken last (decisions §20.42).
   */
  function flush(): void {
    while (startsGroup()) {
      const taken = groupLength(waiting);
      const group = waiting.slice(0, taken);
      waiting = waiting.slice(taken);
      for (const item of group) waitingRecords -= item.records.length;
      inFlight += 1;
      void run(group).finally(() => {
        inFlight -= 1;
        flush();
      });
    }
  }

  const startsGroup = () =>
    waiting.length > 0 && (inFlight === 0 || (inFlight < maxInFlight && waitingRecords >= OVERLAP_RECORDS));
  let flushing = false;

  return {
    store(source, records) {
      return new Promise((resolve, reject) => {
        waiting.push({ source, records, resolve, reject });
        waitingRecords += records.length;
        // A group starts at the end of this turn, with every request that came in it.
        if (flushing || !startsGroup()) return;
        flushing = true;
        setImmediate(() => {
          flushing = false;
          flush();
        });
      });
    },
    get queuedRecords() {
      return waitingRecords;
    },
  };
}

/** What storing a group uses: the ingest's dependencies and what it keeps between groups. */
interface GroupParts {
  readonly deps: IngestDeps;
  readonly writer: TrafficWriter;
  /** Ids of names known to be stored; merged from each group's only once it committed. */
  cache: IdCache;
  readonly routes: RouteResolver;
  /** Each source's rules as the last group read them: what the next group files by until its own read is back. */
  readonly rules: Map<string, readonly string[]>;
}

/** The rules `remembered` holds for every one of `sourceIds`, or none when one of them is not known. */
function rulesKnown(
  remembered: ReadonlyMap<string, readonly string[]>,
  sourceIds: readonly string[],
): Map<string, readonly string[]> | undefined {
  const rules = new Map<string, readonly string[]>();
  for (const id of sourceIds) {
    const known = remembered.get(id);
    if (!known) return undefined;
    rules.set(id, known);
  }
  return rules;
}

const sameRules = (a: ReadonlyMap<string, readonly string[]>, b: ReadonlyMap<string, readonly string[]>): boolean =>
  [...a].every(([id, rules]) => {
    const other = b.get(id);
    return other !== undefined && other.length === rules.length && other.every((rule, i) => rule === rules[i]);
  });

/** One transaction for the whole group; returns each item's entries in input order. */
async function storeGroup(
  parts: GroupParts,
  cache: IdCache,
  group: readonly Waiting[],
): Promise<{ results: StoredEntry[][]; committed: Sequenced[] }> {
  const { deps, writer, routes, rules: remembered } = parts;
  const receivedAt = isoNow(deps.clock);
  const learned: IdCache = { domains: new Map(), pathnames: new Map() };
  const { rows, firstSeq, resolved } = await deps.db.transaction().execute(async (trx) => {
    const known = await resolveNames(trx, group, receivedAt, { cache, learned });
    const sourceIds = [...new Set(group.map((g) => g.source.id))];
    // The rules' read goes with the group's next statements (decisions §20.37); meanwhile the group
    // is filed by the rules the last group read, checked against this read before the INSERT.
    const reading = await heldRulesOf(trx, deps, sourceIds, true);
    const assumed = reading.ready ?? rulesKnown(remembered, sourceIds) ?? (await reading.rules());
    const resolved = await routes.resolve(trx, group, receivedAt, assumed);
    const rows = groupRows(group, known, resolved.routeOf, receivedAt, {
      next: newId,
      stats: deps.stats !== undefined,
    });
    await writer.insertExchanges(trx, rows.traffic);
    // After the count rollup's rows, before the webhooks' and the stream counter: the lock order of
    // §16.6. On PostgreSQL the statistics' locked reads go with the webhooks' read, and their writes
    // with the commit (decisions §20.37).
    const merge = await deps.stats?.(trx, rows.stats);
    for (const hook of deps.hooks) await hook(trx, rows.all);
    const rules = await reading.rules();
    for (const [id, read] of rules) remembered.set(id, read);
    if (!sameRules(rules, assumed)) throw new RulesChanged();
    const write = await merge?.();
    // Last: numbering the entries locks the stream counter until the commit (§9.7).
    const firstSeq = await writer.insertTraffic(trx, rows.traffic);
    await write?.();
    return { rows, firstSeq, resolved };
  });
  for (const [key, id] of learned.domains) parts.cache.domains.set(key, id);
  for (const [key, id] of learned.pathnames) parts.cache.pathnames.set(key, id);
  resolved.committed();
  return { results: rows.results, committed: rows.all.map((entry, i) => ({ entry, seq: firstSeq + i })) };
}
