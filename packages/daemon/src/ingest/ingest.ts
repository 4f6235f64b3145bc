import type { TrafficSource } from '@tapline/shared';
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.js';
import { isoNow, newId } from '../clock.js';
import { isConflict } from '../db/conflict.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import type { Deps } from '../deps.js';
import type { IngestHook, StoredEntry } from '../stream/bus.js';
import type { Sequenced } from '../stream/stream-repo.js';
import type { PreparedRecord } from './prepare.js';
import { type IdCache, resolveNames } from '../http-traffic/names.js';
import { createTrafficWriter } from '../http-traffic/repo.js';
import { createRouteResolver } from '../route-stats/resolve.js';
import { rulesOf } from '../route-stats/rules-repo.js';
import type { StatInput } from '../route-stats/rollup.js';
import { rowsOf } from './rows.js';
import type { NewTrafficRow } from '../http-traffic/table.js';

export interface Ingest {
  /** Stores one request's records, all or none; resolves with their entries once committed. */
  store(source: TrafficSource, records: readonly PreparedRecord[]): Promise<StoredEntry[]>;
  /** Records accepted and waiting for the next transaction (`/metrics`' queue depth). */
  readonly queuedRecords: number;
}

export interface IngestDeps extends Pick<Deps, 'db' | 'dialect' | 'clock' | 'bus'> {
  /** Run inside every ingest transaction (the webhook outbox writes its rows there). */
  readonly hooks: readonly IngestHook[];
  /** Adds the group's entries to the per-route statistics, in its transaction (off with `--no-stats`). */
  readonly stats?: ((trx: Transaction<DB>, inputs: readonly StatInput[]) => Promise<void>) | undefined;
}

/** Records of one request (a single compose or a batch), stored all or none. */
interface Waiting {
  readonly source: TrafficSource;
  readonly records: readonly PreparedRecord[];
  resolve(entries: StoredEntry[]): void;
  reject(error: unknown): void;
}

/** A group stops taking requests at this many records (a few batches of 1,000); the rest go next. */
const MAX_GROUP_RECORDS = 5_000;

/** Deadlocks in a row before a group's requests are failed one by one. */
const MAX_CONFLICT_RETRIES = 3;

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
  const writer = createTrafficWriter(deps.dialect.payloads);
  const cache: IdCache = { domains: new Map(), pathnames: new Map() };
  const routes = createRouteResolver();
  let waiting: Waiting[] = [];
  let inFlight = false;

  /** One transaction for the whole group; returns each item's entries in input order. */
  async function storeGroup(group: readonly Waiting[]): Promise<{ results: StoredEntry[][]; committed: Sequenced[] }> {
    const receivedAt = isoNow(deps.clock);
    const learned: IdCache = { domains: new Map(), pathnames: new Map() };
    const results: StoredEntry[][] = [];
    const all: StoredEntry[] = [];
    const traffic: NewTrafficRow[] = [];
    const statInputs: StatInput[] = [];
    let firstSeq = 0;

    await deps.db.transaction().execute(async (trx) => {
      const known = await resolveNames(trx, group, receivedAt, { cache, learned });
      const rules = await rulesOf(trx, deps, [...new Set(group.map((g) => g.source.id))], true);
      const routeOf = await routes.resolve(trx, group, receivedAt, rules);
      for (const { source, records } of group) {
        const stored: StoredEntry[] = [];
        for (const record of records) {
          const domainId = known.domain(source.id, record.domain);
          const route = routeOf(source.id, record);
          const { row, entry, stat } = rowsOf(
            source.id,
            record,
            { domainId, pathnameId: known.pathname(domainId, record.pathname), route },
            receivedAt,
            newId(),
            deps.stats !== undefined,
          );
          traffic.push(row);
          if (stat) statInputs.push(stat);
          stored.push(entry);
          all.push(entry);
        }
        results.push(stored);
      }
      await writer.insertExchanges(trx, traffic);
      // After the count rollup's rows, before the webhooks' and the stream counter: the lock order of §16.6.
      if (deps.stats) await deps.stats(trx, statInputs);
      for (const hook of deps.hooks) await hook(trx, all);
      // Last: numbering the entries locks the stream counter until the commit (§9.7).
      firstSeq = await writer.insertTraffic(trx, traffic);
    });

    for (const [key, id] of learned.domains) cache.domains.set(key, id);
    for (const [key, id] of learned.pathnames) cache.pathnames.set(key, id);
    routes.committed();
    return { results, committed: all.map((entry, i) => ({ entry, seq: firstSeq + i })) };
  }

  function forgetIds(): void {
    cache.domains.clear();
    cache.pathnames.clear();
    routes.forget();
  }

  async function run(group: Waiting[], conflicts = 0): Promise<void> {
    if (cache.domains.size + cache.pathnames.size > MAX_CACHED_IDS) forgetIds();
    const cached = cache.domains.size + cache.pathnames.size > 0;
    let stored: { results: StoredEntry[][]; committed: Sequenced[] };
    try {
      stored = await storeGroup(group);
    } catch (error) {
      // The transaction lost a race and was rolled back whole (db/conflict.ts: a PostgreSQL
      // deadlock's victim, SQLite busy beside `taplined prune`): nothing of it was written, and
      // the same group succeeds once the other transaction is through. The count of such
      // retries follows the group into every later attempt, so a busy database fails it soon.
      if (isConflict(error) && conflicts < MAX_CONFLICT_RETRIES) return run(group, conflicts + 1);
      // The database cannot serve (a restart, a full disk): no request of the group is to blame,
      // and one by one each would fail the same way, one timeout after another. Each gets the
      // 503 now; the queue goes on with what arrived meanwhile, and stores it once it is back.
      if (isDatabaseUnavailable(error)) return group.forEach((item) => item.reject(error));
      // A cached id may name a row deleted since (with its source by another daemon, or as unused
      // by a prune): forget them all, and try once more before blaming any one request.
      forgetIds();
      if (cached) return run(group, conflicts);
      if (group.length === 1) return group[0]?.reject(error);
      for (const item of group) await run([item], conflicts);
      return;
    }
    // Committed: nothing from here on may send the group to a retry, which would store it again.
    group.forEach((item, i) => item.resolve(stored.results[i] ?? []));
    deps.bus.publish(stored.committed);
  }

  /**
   * One group in flight at a time: what arrives meanwhile waits and goes, together, into the next
   * transaction. Concurrent groups gained nothing (they queue on the count rows and the stream
   * counter, which every ingest transaction locks until it commits) and made the groups tiny;
   * under load a group is now every request that arrived during the previous commit.
   */
  function flush(): void {
    if (inFlight || waiting.length === 0) return;
    let records = 0;
    let taken = 0;
    while (taken < waiting.length && (taken === 0 || records < MAX_GROUP_RECORDS))
      records += waiting[taken++]?.records.length ?? 0;
    const group = waiting.slice(0, taken);
    waiting = waiting.slice(taken);
    inFlight = true;
    void run(group).finally(() => {
      inFlight = false;
      flush();
    });
  }

  return {
    store(source, records) {
      return new Promise((resolve, reject) => {
        if (waiting.length === 0 && !inFlight) setImmediate(flush);
        waiting.push({ source, records, resolve, reject });
      });
    },
    get queuedRecords() {
      return waiting.reduce((n, item) => n + item.records.length, 0);
    },
  };
}
