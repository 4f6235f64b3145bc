import { Counter, Gauge, Registry } from './prom.js';
import type { Db } from '../db/open.js';
import type { TrafficBus } from '../stream/bus.js';

/** What the health metrics read at each scrape; every part is this daemon's, or its database's. */
export interface HealthProbes {
  readonly db: Db;
  readonly bus: TrafficBus;
  /** Records accepted and waiting for the next ingest transaction (ingest/ingest.ts). */
  readonly queuedRecords: () => number;
  /** Large batch bodies waiting for their turn to be read (`Limits.largeBatches`). */
  readonly waitingBatches: () => number;
  readonly openStreams: () => number;
  /** Everything the database takes on disk (retention/storage.ts). */
  readonly databaseBytes: () => Promise<number>;
}

/** Webhook messages not yet delivered nor given up: the outbox's backlog, of every daemon on the database. */
async function outboxBacklog(db: Db): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('status', 'in', ['pending', 'sending'])
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export interface HealthMetrics {
  readonly registry: Registry;
  stop(): void;
}

/**
 * The daemon's own health (docs/api.md, `GET /metrics`): ingest counted from the bus, the rest
 * read when scraped, by each gauge's `collect`. One registry for the daemon's life, so that the
 * ingest counter keeps growing between scrapes.
 */
export function createHealthMetrics(probes: HealthProbes): HealthMetrics {
  const registry = new Registry();
  const registers = [registry];
  const ingested = new Counter({
    name: 'tapline_ingested_entries_total',
    help: 'Entries this daemon committed since it started (rate() of it is the ingest rate)',
    registers,
  });
  const unsubscribe = probes.bus.subscribe((committed) => ingested.inc(committed.length));
  const gauge = (name: string, help: string, read: () => number | Promise<number>) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        this.set(await read());
      },
    });
  gauge(
    'tapline_ingest_queue_records',
    'Records accepted and waiting for the next ingest transaction',
    probes.queuedRecords,
  );
  gauge(
    'tapline_ingest_waiting_large_batches',
    'Large batch bodies waiting for their turn to be read',
    probes.waitingBatches,
  );
  gauge('tapline_open_streams', 'Event streams (GET /http-traffic/:id/stream) open on this daemon', probes.openStreams);
  gauge(
    'tapline_database_size_bytes',
    'Everything the database takes on disk, its write-ahead log included',
    probes.databaseBytes,
  );
  gauge(
    'tapline_webhook_outbox_backlog',
    'Webhook messages pending or being sent, of every daemon on the database',
    () => outboxBacklog(probes.db),
  );
  return { registry, stop: unsubscribe };
}
