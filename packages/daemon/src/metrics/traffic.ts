import { Counter, Histogram, Registry } from './prom.js';
import type { TrafficBus } from '../stream/bus.js';
import type { Sequenced } from '../stream/stream-repo.js';
import type { SourceFinder } from '../traffic-sources/repo.js';

/** Labels of every traffic series: per source, domain, route, method and status class. */
const LABELS = ['source', 'domain', 'route', 'method', 'status_class'] as const;
type Label = (typeof LABELS)[number];
type Labels = Record<Label, string>;

/**
 * Seconds. Prometheus' usual latency buckets, with 30 s added for slow endpoints; a histogram's
 * buckets are fixed for the life of the series, so they are not configurable per daemon.
 */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** One registry's request counter and latency histogram. */
interface Family {
  readonly registry: Registry;
  readonly requests: Counter<Label>;
  readonly latency: Histogram<Label>;
}

function newFamily(): Family {
  const registry = new Registry();
  const requests = new Counter({
    name: 'tapline_http_requests_total',
    help: 'Recorded HTTP exchanges committed by this daemon since it started, per source, domain, route template, method and status class',
    labelNames: LABELS,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'tapline_http_request_duration_seconds',
    help: 'Latency (elapsedTime) of the recorded HTTP exchanges committed by this daemon since it started',
    labelNames: LABELS,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  return { registry, requests, latency };
}

/** Where an entry is counted: its owner's family (every source they may see) and its source's own. */
interface SourceSeries {
  readonly userId: string;
  readonly family: Family;
  /** Label sets seen, to take them out of the owner's family when the source is deleted. */
  readonly seen: Map<string, Labels>;
}

export interface TrafficMetrics {
  /** The series of every source of `userId` (a token of the user's that names no source). */
  forUser(userId: string, existing: ReadonlySet<string>): Registry;
  /** The series of one source (a token restricted to it, or `?source=`). */
  forSource(sourceId: string): Registry;
  /** Resolves once the entries published so far are counted (their owners looked up). */
  settled(): Promise<void>;
  stop(): void;
}

const labelsOf = ({ entry }: Sequenced): Labels => ({
  source: entry.trafficSourceId,
  domain: entry.domain,
  route: entry.route ?? entry.pathname,
  method: entry.method,
  status_class: `${Math.floor(entry.status / 100)}xx`,
});

/**
 * The request counters and latency histograms of `/metrics` (docs/decisions.md §22.1): counted
 * in memory from the entries this daemon commits, as the bus publishes them after each commit,
 * so they only ever grow, as Prometheus counters must. Kept twice, per owner and per source,
 * because prom-client writes a registry whole: a scrape answers one registry, never a filtered
 * copy, so what a token may not see is never in what it is sent.
 */
export function createTrafficMetrics(bus: TrafficBus, findSource: SourceFinder): TrafficMetrics {
  const users = new Map<string, Family>();
  const sources = new Map<string, SourceSeries>();
  const owners = new Map<string, Promise<string | undefined>>();
  let pending: Promise<unknown> = Promise.resolve();

  const familyOf = (userId: string) => {
    let family = users.get(userId);
    if (!family) users.set(userId, (family = newFamily()));
    return family;
  };

  /**
   * The entries of one label set, in the order they committed: the counters go up by their number
   * at once, and each latency is observed as before. A batch of 1,000 has a few dozen label sets,
   * where counting entry by entry built and hashed every label set five times an entry
   * (decisions §20.25).
   */
  function count(series: SourceSeries, labels: Labels, seconds: readonly number[]): void {
    series.seen.set(JSON.stringify(labels), labels);
    for (const family of [series.family, familyOf(series.userId)]) {
      family.requests.inc(labels, seconds.length);
      const latency = family.latency.labels(labels);
      for (const value of seconds) latency.observe(value);
    }
  }

  async function seriesOf(sourceId: string): Promise<SourceSeries | undefined> {
    const known = sources.get(sourceId);
    if (known) return known;
    let owner = owners.get(sourceId);
    // One look-up per source however many entries wait on it; a failed one is tried again next time.
    if (!owner)
      owners.set(
        sourceId,
        (owner = findSource(sourceId).then(
          (s) => s?.userId,
          () => (owners.delete(sourceId), undefined),
        )),
      );
    const userId = await owner;
    if (userId === undefined) return undefined;
    let series = sources.get(sourceId);
    if (!series) sources.set(sourceId, (series = { userId, family: newFamily(), seen: new Map() }));
    return series;
  }

  function onCommitted(committed: readonly Sequenced[]): void {
    const waiting: Sequenced[] = [];
    // By label set, in the order each first committed (the order prom-client's series are made in).
    const sets = new Map<string, { series: SourceSeries; labels: Labels; seconds: number[] }>();
    for (const item of committed) {
      const series = sources.get(item.entry.trafficSourceId);
      if (!series) {
        waiting.push(item);
        continue;
      }
      const labels = labelsOf(item);
      const key = JSON.stringify(labels);
      const set = sets.get(key);
      if (set) set.seconds.push(item.entry.elapsedTime / 1000);
      else sets.set(key, { series, labels, seconds: [item.entry.elapsedTime / 1000] });
    }
    for (const { series, labels, seconds } of sets.values()) count(series, labels, seconds);
    if (waiting.length === 0) return;
    // The first entries of a source wait for its owner; a source deleted meanwhile counts nothing.
    pending = Promise.all([
      pending,
      ...waiting.map(async (item) => {
        const series = await seriesOf(item.entry.trafficSourceId);
        if (series) count(series, labelsOf(item), [item.entry.elapsedTime / 1000]);
      }),
    ]);
  }

  const unsubscribe = bus.subscribe(onCommitted);
  return {
    forUser(userId, existing) {
      const family = familyOf(userId);
      for (const [sourceId, series] of sources) {
        if (series.userId !== userId || existing.has(sourceId)) continue;
        for (const labels of series.seen.values()) {
          family.requests.remove(labels);
          family.latency.remove(labels);
        }
        sources.delete(sourceId);
        owners.delete(sourceId);
      }
      return family.registry;
    },
    forSource(sourceId) {
      return sources.get(sourceId)?.family.registry ?? new Registry();
    },
    settled: async () => {
      await pending;
    },
    stop: unsubscribe,
  };
}
