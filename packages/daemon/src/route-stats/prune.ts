import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import { minuteOf, startOf } from './rollup.js';

/**
 * `--stats-retention` (docs/statistics.md): minute rows that began before `before` go, and hour
 * and day rows that ended by then, source by source (each a range of the primary key). Entries are
 * never looked at: the entry pruner and this one are independent, so pruning traffic leaves the
 * numbers as they were.
 */
export async function pruneStats(db: Db, before: string): Promise<number> {
  const sources = await db.selectFrom('traffic_sources').select('id').execute();
  let removed = 0;
  for (const { id } of sources) {
    const result = await db
      .deleteFrom('route_stats')
      .where('traffic_source_id', '=', id)
      .where('minute', '<', minuteOf(before))
      .executeTakeFirst();
    removed += Number(result.numDeletedRows);
    for (const span of [60, 1440] as const) {
      const rolled = await db
        .deleteFrom('route_rollups')
        .where('traffic_source_id', '=', id)
        .where('span', '=', span)
        .where('start', '<', startOf(before, span))
        .executeTakeFirst();
      removed += Number(rolled.numDeletedRows);
    }
  }
  return removed;
}

export interface StatsPruner {
  start(): void;
  runNow(): Promise<number>;
  stop(): void;
}

export function createStatsPruner(deps: {
  readonly db: Db;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly retentionMs: number | null;
  readonly everyMs: number;
}): StatsPruner {
  let timer: NodeJS.Timeout | undefined;
  const runNow = async () =>
    deps.retentionMs === null
      ? 0
      : pruneStats(deps.db, new Date(deps.clock.now().getTime() - deps.retentionMs).toISOString());
  const round = () =>
    void runNow()
      .then(
        (removed) => removed > 0 && deps.logger.info({ minutes: removed }, 'statistics past --stats-retention removed'),
      )
      .catch((error: unknown) =>
        deps.logger.warn({ err: error }, 'statistics prune failed; it runs again at the next round'),
      );
  return {
    start() {
      if (deps.retentionMs === null || timer) return;
      round();
      timer = setInterval(round, deps.everyMs);
      timer.unref();
    },
    runNow,
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}
