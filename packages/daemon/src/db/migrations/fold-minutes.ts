import { type Kysely, sql } from 'kysely';
import { addStored, emptyTotals, startOf, type StoredMinute, type Totals } from '../../route-stats/rollup.js';

type AnyDB = Kysely<unknown>;

/** A minute row as stored (ids in their stored form: blobs on SQLite), which the fold copies as they are. */
interface MinuteRow extends StoredMinute {
  readonly traffic_source_id: unknown;
  readonly minute: string;
  readonly route_id: unknown;
  readonly method: string;
  readonly domain_id: unknown;
  readonly status_class: number;
}

const text = (v: unknown): string => (Buffer.isBuffer(v) ? v.toString('hex') : String(v));

interface Bucket extends Totals {
  readonly row: MinuteRow;
  readonly start: string;
}

const DAY = 86_400_000;

/**
 * Adds the stored minute rows into hour and day rows (migration 2026-11-28T0100-route-rollups),
 * one source and one UTC day at a time (a range of route_stats' primary key), so memory holds a
 * day of one source's rows at most.
 */
export async function foldMinutes(db: AnyDB): Promise<void> {
  const sources = await sql<{ traffic_source_id: unknown; first: string; last: string }>`
    select traffic_source_id, min(minute) as first, max(minute) as last from route_stats group by traffic_source_id`.execute(
    db,
  );
  for (const { traffic_source_id: sourceId, first, last } of sources.rows) {
    for (let day = Date.parse(startOf(first, 1440)); day <= Date.parse(last); day += DAY) {
      const rows = await sql<MinuteRow>`
        select * from route_stats where traffic_source_id = ${sourceId} and minute >= ${new Date(day).toISOString()} and minute < ${new Date(day + DAY).toISOString()}`.execute(
        db,
      );
      const buckets = new Map<string, Bucket>();
      for (const row of rows.rows) {
        for (const span of [60, 1440] as const) {
          const start = startOf(row.minute, span);
          const key = `${span} ${start} ${text(row.route_id)} ${row.method} ${text(row.domain_id)} ${row.status_class}`;
          let bucket = buckets.get(key);
          if (!bucket) buckets.set(key, (bucket = { ...emptyTotals(), row, start }));
          addStored(bucket, row);
        }
      }
      for (const [key, b] of buckets) {
        const span = Number(key.split(' ')[0]);
        await sql`insert into route_rollups (traffic_source_id, span, start, route_id, method, domain_id, status_class, count, latency_max, latency_sum, request_bytes, response_bytes, sketch)
          values (${b.row.traffic_source_id}, ${span}, ${b.start}, ${b.row.route_id}, ${b.row.method}, ${b.row.domain_id}, ${b.row.status_class}, ${b.count}, ${b.latencyMax},
            ${b.latencySum}, ${b.requestBytes}, ${b.responseBytes}, ${b.sketch.encode()})`.execute(db);
      }
    }
  }
}
