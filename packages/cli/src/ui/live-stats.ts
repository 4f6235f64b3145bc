import type { HttpTraffic, Level } from '@tapline/shared';

/** What the UI's header line shows; latencies in milliseconds, null when nothing was seen. */
export interface StatsSnapshot {
  /** Requests per second over the last RATE_WINDOW_MS (short, so the rate reacts quickly). */
  readonly perSecond: number;
  /** Entries of the last minute by level. */
  readonly levels: Readonly<Record<Level, number>>;
  readonly p50: number | null;
  readonly p95: number | null;
}

export const WINDOW_MS = 60_000;
export const RATE_WINDOW_MS = 10_000;

interface Sample {
  readonly at: number;
  readonly level: Level;
  readonly latency: number;
}

/**
 * Rolling statistics over the entries of the last minute, keyed on each entry's `createdAt`, so
 * the history loaded at start counts as much as what arrives live. Samples are kept in arrival
 * order and pruned from the front; snapshots are taken at a fixed pace, not per entry.
 */
export class LiveStats {
  private samples: Sample[] = [];
  private readonly seen = new Set<string>();

  add(entries: readonly HttpTraffic[]): void {
    for (const e of entries) {
      if (this.seen.has(e.id)) continue;
      this.seen.add(e.id);
      this.samples.push({ at: Date.parse(e.createdAt), level: e.level, latency: e.elapsedTime });
    }
  }

  clear(): void {
    this.samples = [];
    this.seen.clear();
  }

  snapshot(now: number): StatsSnapshot {
    const since = now - WINDOW_MS;
    if (this.samples.some((s) => s.at < since)) {
      this.samples = this.samples.filter((s) => s.at >= since);
      // Ids are only needed to refuse duplicates inside the window.
      if (this.seen.size > this.samples.length * 2 + 1000) this.seen.clear();
    }
    const levels: Record<Level, number> = { INFO: 0, WARNING: 0, FATAL: 0 };
    const latencies: number[] = [];
    let recent = 0;
    for (const s of this.samples) {
      levels[s.level] += 1;
      latencies.push(s.latency);
      if (s.at >= now - RATE_WINDOW_MS) recent += 1;
    }
    latencies.sort((a, b) => a - b);
    return { perSecond: recent / (RATE_WINDOW_MS / 1000), levels, p50: percentile(latencies, 50), p95: percentile(latencies, 95) };
  }
}

/** Nearest-rank percentile of ascending values. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] ?? null;
}
