import { STREAM_EVENT, STREAM_RETRY_MS } from '@tapline/shared/lean';
import type { TrafficFilters } from '@tapline/shared';
import type { Store } from '../db/open.js';
import { matchLive, type StreamHub } from './stream-hub.js';
import {
  matchingTrafficIds,
  newestStreamPoint,
  type Sequenced,
  streamPointOf,
  type StreamPoint,
  trafficAfter,
} from './stream-repo.js';

export interface StreamOptions {
  /** A `: heartbeat` comment this often keeps proxies and idle timers from closing the stream. */
  readonly heartbeatMs: number;
  /** Live entries waiting for a slow client; one more and the client is told `overflow` and closed. */
  readonly maxQueue: number;
  /** Rows per replay query. */
  readonly replayPage: number;
  /**
   * Bytes the stream may hold for its client (`--stream-buffer`): events are written in pieces of
   * a quarter of it, each once the client has taken the one before, so a client that stops
   * reading holds one piece, not everything the daemon has for it.
   */
  readonly maxBytes: number;
}

export const DEFAULT_STREAM_OPTIONS: StreamOptions = {
  heartbeatMs: 15_000,
  maxQueue: 1_000,
  replayPage: 500,
  maxBytes: 256 * 1024,
};

/** Where events go: resolves when the text is written, or once a full socket buffer drains. */
export interface StreamSink {
  write(text: string): Promise<void>;
  end(): void;
}

interface Pending extends Sequenced {
  /** The filter needs the record (header or body): confirm in the database before sending. */
  readonly verify: boolean;
}

/** Replay rounds before a client whose replay keeps overflowing is told to come back later. */
const MAX_REPLAY_ROUNDS = 5;

const event = (name: string, data: unknown, id?: string) =>
  `${id ? `id: ${id}\n` : ''}event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * One client's stream. It subscribes before it reads the database, so an entry committed during
 * the replay is either in the replay or in the queue; the cursor (the last entry sent, compared
 * by its stream number, docs/decisions.md §9.7) drops the overlap. Nothing is lost between replay
 * and live, and nothing is sent twice.
 */
export class StreamSession {
  private queue: Pending[] = [];
  private replaying = true;
  /** Live entries overflowed the queue during the replay; they are read from the database again. */
  private overflowed = false;
  private closed = false;
  private wakeUp: (() => void) | undefined;
  private readonly unsubscribe: () => void;
  /** The last entry sent (or the one the client named); undefined: the source has none yet. */
  private position: StreamPoint | undefined;

  constructor(
    private readonly store: Store,
    private readonly hub: StreamHub,
    private readonly sourceId: string,
    private readonly filters: TrafficFilters,
    private readonly sink: StreamSink,
    private readonly options: StreamOptions,
    private readonly cursor: string | undefined,
  ) {
    this.unsubscribe = hub.subscribe(sourceId, (entries) => this.offer(entries));
  }

  /** Runs until `close()`, the client's overflow, or a failed write. */
  async run(): Promise<void> {
    const heartbeat = setInterval(() => void this.sink.write(': heartbeat\n\n'), this.options.heartbeatMs);
    try {
      await this.hub.ready();
      this.position =
        this.cursor === undefined
          ? await newestStreamPoint(this.store.db, this.sourceId)
          : { id: this.cursor, seq: await streamPointOf(this.store.db, this.sourceId, this.cursor) };
      const id = this.position?.id;
      await this.sink.write(`retry: ${STREAM_RETRY_MS}\n\n${event(STREAM_EVENT.ready, { cursor: id ?? null }, id)}`);
      if (!(await this.replay())) return this.sendOverflow();
      this.replaying = false;
      await this.live();
    } finally {
      clearInterval(heartbeat);
      this.close();
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    this.queue = [];
    this.wakeUp?.();
    this.sink.end();
  }

  /** On the ingest path: in-memory tests and a push, nothing more. */
  private offer(committed: readonly Sequenced[]): void {
    if (this.closed || this.overflowed) return;
    for (const { entry, seq } of committed) {
      const verdict = matchLive(entry, this.filters);
      if (verdict !== false) this.queue.push({ entry, seq, verify: verdict === undefined });
    }
    if (this.queue.length > this.options.maxQueue) {
      this.queue = [];
      // During the replay everything missed is still in the database: read it again. Once live,
      // the client is behind its own socket: tell it (the event queues behind what is buffered,
      // after the cursor it names) and hang up, so it re-syncs from the database.
      if (this.replaying) this.overflowed = true;
      else {
        void this.sendOverflow();
        this.close();
      }
    }
    this.wakeUp?.();
  }

  /** Every stored match after the cursor, oldest first. False when live entries kept overflowing. */
  private async replay(): Promise<boolean> {
    for (let round = 0; round < MAX_REPLAY_ROUNDS; round++) {
      // Entries missed while the queue was full are all stored: accept live ones again, then read.
      this.overflowed = false;
      for (;;) {
        const rows = await trafficAfter(
          this.store,
          this.sourceId,
          this.filters,
          this.position?.seq ?? 0,
          this.options.replayPage,
        );
        if (this.closed) return true;
        await this.send(rows);
        if (rows.length < this.options.replayPage) break;
      }
      if (!this.overflowed) return true;
    }
    return false;
  }

  private async live(): Promise<void> {
    while (!this.closed) {
      if (this.queue.length === 0) {
        await new Promise<void>((resolve) => (this.wakeUp = resolve));
        this.wakeUp = undefined;
        continue;
      }
      const batch = this.queue;
      this.queue = [];
      const after = this.position?.seq ?? 0;
      let fresh = batch.filter((p) => p.seq > after);
      if (fresh.some((p) => p.verify)) {
        const confirmed = await matchingTrafficIds(
          this.store,
          this.sourceId,
          this.filters,
          fresh.filter((p) => p.verify).map((p) => p.entry.id),
        );
        fresh = fresh.filter((p) => !p.verify || confirmed.has(p.entry.id));
      }
      await this.send(fresh);
    }
  }

  private async send(committed: readonly Sequenced[]): Promise<void> {
    const last = committed.at(-1);
    if (!last || this.closed) return;
    this.position = { id: last.entry.id, seq: last.seq };
    const piece = this.options.maxBytes / 4;
    let text = '';
    for (const { entry } of committed) {
      text += this.hub.eventText(entry);
      if (text.length < piece) continue;
      await this.sink.write(text);
      text = '';
      if (this.closed) return;
    }
    if (text) await this.sink.write(text);
  }

  private sendOverflow(): Promise<void> {
    return this.sink.write(event(STREAM_EVENT.overflow, { cursor: this.position?.id ?? null }));
  }
}
