import type { PageQuery, TrafficSource } from '@tapline/shared';
import type { Db } from '../db/open.js';
import { type Gathering, gatheredLookup } from '../db/gathered.js';
import { preparedLookup } from '../db/prepared.js';
import type { TrafficSourceRow } from './table.js';
import { type Clock, isoNow, newId } from '../clock.js';
import { newestFirst } from '../http/pagination.js';

const toTrafficSource = (row: TrafficSourceRow): TrafficSource => ({
  id: row.id,
  name: row.name,
  trafficDomain: row.traffic_domain,
  userId: row.user_id,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export type SourceFinder = (id: string) => Promise<TrafficSource | undefined>;

/**
 * PostgreSQL's lookup of sources by an array of ids, kept prepared (db/gathered.ts, `kept`; decisions
 * §20.34): the columns `toTrafficSource` reads, each cast to the type it has, where `selectAll`'s
 * result would change with another daemon's migration, which a kept statement refuses (0A000).
 */
const KEPT_SOURCE_ROWS = `select id::text as id, user_id::text as user_id, name::text as name,
       traffic_domain::text as traffic_domain, created_at::text as created_at, updated_at::text as updated_at
from traffic_sources
where id = any($1::text[])`;

/**
 * Every request that names a source runs this first: compiled once, by the app that owns `db`.
 * Given how the database stores ids (the app's), the sources of requests that arrive together
 * are read in one query (db/gathered.ts, §16.6); without (admin commands), one query a lookup.
 *
 * `dialect`: the app's, to gather lookups, kept prepared on PostgreSQL (KEPT_SOURCE_ROWS).
 */
export function createSourceFinder(db: Db, dialect?: Gathering): SourceFinder {
  const sources = (db: Pick<Db, 'selectFrom'>) => db.selectFrom('traffic_sources').selectAll();
  const sourceById = dialect
    ? gatheredLookup(db, dialect.stored, {
        column: 'id',
        build: (db, ids) => sources(db).where('id', 'in', ids),
        keyOf: (row) => row.id,
        kept: dialect.backend === 'postgres' ? KEPT_SOURCE_ROWS : undefined,
      })
    : preparedLookup(db, (db, id) => sources(db).where('id', '=', id));
  return async (id) => {
    const row = await sourceById(id);
    return row && toTrafficSource(row);
  };
}

export async function findTrafficSourceByName(
  db: Db,
  userId: string,
  name: string,
): Promise<TrafficSource | undefined> {
  const row = await db
    .selectFrom('traffic_sources')
    .selectAll()
    .where('user_id', '=', userId)
    .where('name', '=', name)
    .executeTakeFirst();
  return row && toTrafficSource(row);
}

/** `onlyId` narrows the list to one source, for tokens restricted to it. */
export function listTrafficSources(db: Db, userId: string, onlyId: string | null, page: PageQuery) {
  let base = db.selectFrom('traffic_sources').where('user_id', '=', userId);
  if (onlyId) base = base.where('id', '=', onlyId);
  return newestFirst(page, base, (q) => q.selectAll(), toTrafficSource);
}

export async function createTrafficSource(
  db: Db,
  clock: Clock,
  userId: string,
  input: { name: string; trafficDomain: string },
): Promise<TrafficSource> {
  const now = isoNow(clock);
  const row = {
    id: newId(),
    user_id: userId,
    name: input.name,
    traffic_domain: input.trafficDomain,
    created_at: now,
    updated_at: now,
  };
  await db.insertInto('traffic_sources').values(row).execute();
  return toTrafficSource(row);
}

export async function updateTrafficSource(
  db: Db,
  clock: Clock,
  id: string,
  input: { name?: string | undefined; trafficDomain?: string | undefined },
): Promise<TrafficSource> {
  const row = await db
    .updateTable('traffic_sources')
    .set({
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.trafficDomain !== undefined ? { traffic_domain: input.trafficDomain } : {}),
      updated_at: isoNow(clock),
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toTrafficSource(row);
}

/** Foreign keys cascade: traffic, requests, responses, domains, pathnames, logs and webhooks go too. */
export async function deleteTrafficSource(db: Db, id: string): Promise<void> {
  await db.deleteFrom('traffic_sources').where('id', '=', id).execute();
}
