import { randomBytes } from 'node:crypto';
import type { CreatedWebhook, PageQuery, Webhook } from '@tapline/shared';
import type { Db } from '../db/open.js';
import type { WebhooksTable } from './table.js';
import { type Clock, isoNow, newId } from '../clock.js';
import { countRows, paginate } from '../http/pagination.js';

/** The wire shape never carries `secret`; only the 201 of an `http` webhook adds it, once. */
const toWebhook = (row: WebhooksTable): Webhook => ({
  id: row.id,
  type: row.type as Webhook['type'],
  level: row.level as Webhook['level'],
  value: row.value,
  trafficSourceId: row.traffic_source_id,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export function listWebhooks(db: Db, sourceId: string, page: PageQuery) {
  const base = db.selectFrom('webhooks').where('traffic_source_id', '=', sourceId);
  return paginate(
    page,
    () => countRows(base),
    async (limit, offset) =>
      (await base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute()).map(toWebhook),
  );
}

export async function findWebhook(db: Db, id: string) {
  return db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function webhookExists(db: Db, sourceId: string, input: Pick<Webhook, 'type' | 'level' | 'value'>): Promise<boolean> {
  const row = await db
    .selectFrom('webhooks')
    .select('id')
    .where('traffic_source_id', '=', sourceId)
    .where('type', '=', input.type)
    .where('level', '=', input.level)
    .where('value', '=', input.value)
    .executeTakeFirst();
  return row !== undefined;
}

export async function createWebhook(db: Db, clock: Clock, sourceId: string, input: Pick<Webhook, 'type' | 'level' | 'value'>): Promise<CreatedWebhook> {
  const now = isoNow(clock);
  const row: WebhooksTable = {
    id: newId(),
    traffic_source_id: sourceId,
    type: input.type,
    level: input.level,
    value: input.value,
    secret: input.type === 'http' ? randomBytes(32).toString('hex') : null,
    created_at: now,
    updated_at: now,
  };
  await db.insertInto('webhooks').values(row).execute();
  return { ...toWebhook(row), ...(row.secret ? { secret: row.secret } : {}) };
}

/** Cascades to anything queued for the webhook, so nothing more is sent once this returns. */
export async function deleteWebhook(db: Db, id: string): Promise<void> {
  await db.deleteFrom('webhooks').where('id', '=', id).execute();
}
