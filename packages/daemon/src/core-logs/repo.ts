import type { CoreLog, PageQuery } from '@tapline/shared';
import type { Db } from '../db/open.js';
import type { CoreLogsTable } from './table.js';
import { type Clock, isoNow, newId } from '../clock.js';
import { newestFirst } from '../http/pagination.js';

const toCoreLog = (row: CoreLogsTable): CoreLog => ({
  id: row.id,
  title: row.title,
  description: row.description,
  source: row.source,
  layer: row.layer,
  stack: row.stack,
  createdAt: row.created_at,
  httpTrafficId: row.http_traffic_id,
});

export function listCoreLogs(db: Db, sourceId: string, page: PageQuery) {
  const base = db.selectFrom('core_logs').where('traffic_source_id', '=', sourceId);
  return newestFirst(page, base, (q) => q.selectAll(), toCoreLog);
}

export interface NewCoreLog {
  title: string;
  description?: string | undefined;
  source?: string | undefined;
  layer?: string | undefined;
  stack?: string | undefined;
  httpTrafficId?: string | null | undefined;
}

export async function createCoreLog(db: Db, clock: Clock, sourceId: string, input: NewCoreLog): Promise<CoreLog> {
  const row: CoreLogsTable = {
    id: newId(),
    traffic_source_id: sourceId,
    http_traffic_id: input.httpTrafficId ?? null,
    title: input.title,
    description: input.description ?? '',
    source: input.source ?? '',
    layer: input.layer ?? '',
    stack: input.stack ?? '',
    created_at: isoNow(clock),
  };
  await db.insertInto('core_logs').values(row).execute();
  return toCoreLog(row);
}
