import { conflictingRule } from '@tapline/shared/lean';
import type { PageQuery, RouteRule } from '@tapline/shared';
import { type Clock, isoNow, newId } from '../clock.js';
import type { SqlDialect } from '../db/dialect.js';
import type { Db, Executor } from '../db/open.js';
import { executeKeptHeld, executeKeptTaking, executeTaking, KeptRead } from '../db/joined.js';
import { ShapedStatements } from '../db/shaped.js';
import { HttpError } from '../http/errors.js';
import { newestFirst, type Page } from '../http/pagination.js';
import { findOrCreateRoute } from './resolve.js';

type Dialected = { readonly dialect: SqlDialect };

/**
 * Each source's rules, sorted by template (so that two equally literal rules resolve the same way
 * everywhere). With `lock`, on PostgreSQL, the sources' rows are held `FOR SHARE` until the
 * transaction ends: a rule change takes them `FOR NO KEY UPDATE` first, so it waits for every
 * transaction that filed entries under the rules it read, and every later one reads the new rules.
 * That is what lets the reassignment job, which starts after the change commits, miss no entry.
 */
export async function rulesOf(
  trx: Executor,
  deps: Dialected,
  sourceIds: readonly string[],
  lock: boolean,
): Promise<Map<string, string[]>> {
  return (await heldRulesOf(trx, deps, sourceIds, lock, false)).rules();
}

/**
 * `rulesOf`, its read held on PostgreSQL's connection (db/joined.ts, `executeKeptHeld`): it goes with
 * the next statement of the transaction, and `rules()` reads it then (sending what waits if nothing
 * has yet). Elsewhere, or without `hold`, the rules are read at once (`ready`).
 */
export async function heldRulesOf(
  trx: Executor,
  deps: Dialected,
  sourceIds: readonly string[],
  lock: boolean,
  hold = true,
): Promise<HeldRules> {
  const rulesFrom = (rows: readonly RuleRow[]) => {
    const rules = new Map<string, string[]>(sourceIds.map((id) => [id, []]));
    for (const row of rows) if (row.template !== null) rules.get(row.traffic_source_id)?.push(row.template);
    return rules;
  };
  const now = (rules: Map<string, string[]>) => ({ ready: rules, rules: () => Promise.resolve(rules) });
  if (sourceIds.length === 0) return now(rulesFrom([]));
  const locking = lock && deps.dialect.concurrentWriters;
  const build = (ids: readonly string[]) => {
    const query = trx
      .selectFrom('traffic_sources as s')
      .leftJoin('route_rules as r', 'r.traffic_source_id', 's.id')
      .select(['s.id as traffic_source_id', 'r.template'])
      .where('s.id', 'in', [...ids])
      .orderBy('s.id')
      .orderBy('r.template');
    return locking ? query.forShare('s') : query;
  };
  // PostgreSQL's is kept prepared, or after that failed compiled once a number of sources
  // (db/shaped.ts); SQLite's Kysely rewrites ids as it compiles.
  // In an ingest transaction this is the first statement: on PostgreSQL it waits with its `begin`
  // for the group's statistics and the webhooks' read (db/pg-joined.ts, decisions §20.37).
  if (deps.dialect.backend !== 'postgres') {
    return now(rulesFrom(await executeTaking(trx, deps.dialect, build(sourceIds))));
  }
  const text = locking ? RULES_LOCKED : RULES_READ;
  const shaped = () =>
    executeTaking(
      trx,
      deps.dialect,
      RULES.statement(trx, `rules/${locking}`, sourceIds, (at) => build(sourceIds.map((id, i) => at(i, id)))),
    );
  if (!hold)
    return now(rulesFrom(await KEPT_RULES.read(trx, () => executeKeptTaking<RuleRow>(trx, text, [sourceIds]), shaped)));
  const held = await KEPT_RULES.held(trx, () => executeKeptHeld<RuleRow>(trx, text, [sourceIds]), shaped);
  if (held.ready !== undefined) return now(rulesFrom(held.ready));
  return { rules: async () => rulesFrom(await held.rows()) };
}

/** Rules being read: `rules()` once they are back; `ready`, when they were read at once. */
export interface HeldRules {
  readonly ready?: Map<string, string[]>;
  rules(): Promise<Map<string, string[]>>;
}

interface RuleRow {
  traffic_source_id: string;
  template: string | null;
}

/**
 * PostgreSQL's read of the rules, one text whatever the sources' number, kept prepared on each
 * connection (db/joined.ts, `executeKeptTaking`; decisions §20.34): the same rows in the same
 * order, the same rows locked, as the builder's `in (…)`; its result columns cast, so that another
 * daemon's migration cannot change its result's type.
 */
const RULES_READ = `select s.id::text as traffic_source_id, r.template::text as template
from traffic_sources as s left join route_rules as r on r.traffic_source_id = s.id
where s.id = any($1::text[])
order by s.id, r.template`;
const RULES_LOCKED = `${RULES_READ}
for share of s`;

/** The kept reads of the rules, until one fails on a column's type (db/joined.ts). */
const KEPT_RULES = new KeptRead();

/** PostgreSQL's reads of the rules, compiled once a number of sources (decisions §20.29). */
const RULES = new ShapedStatements();

/** Holds the source's row against ingest and backfill transactions reading its rules (see rulesOf). */
async function lockSourceRules(trx: Executor, deps: Dialected, sourceId: string): Promise<void> {
  if (deps.dialect.concurrentWriters)
    await trx.selectFrom('traffic_sources').select('id').where('id', '=', sourceId).forNoKeyUpdate().execute();
}

/**
 * Asks the reassignment job to look at every stored entry of the source again, under the rules
 * as they are now. Taken before anything else the change writes: the job holds this row for the
 * whole of its batch, so the change waits for the batch rather than the other way round.
 */
async function requestReassignment(trx: Executor, sourceId: string): Promise<void> {
  await trx
    .insertInto('route_reassignments')
    .values({ traffic_source_id: sourceId, after_id: null, generation: 0 })
    .onConflict((oc) =>
      oc
        .column('traffic_source_id')
        .doUpdateSet((eb) => ({ after_id: null, generation: eb('route_reassignments.generation', '+', 1) })),
    )
    .execute();
}

async function entriesUnder(
  trx: Executor,
  sourceId: string,
  templates: readonly string[],
): Promise<Map<string, number>> {
  if (templates.length === 0) return new Map();
  const rows = await trx
    .selectFrom('routes as r')
    .innerJoin('http_traffic as t', 't.route_id', 'r.id')
    .select((eb) => ['r.template', eb.fn.countAll<number | string>().as('n')])
    .where('r.traffic_source_id', '=', sourceId)
    .where('t.traffic_source_id', '=', sourceId)
    .where('r.template', 'in', [...templates])
    .groupBy('r.template')
    .execute();
  return new Map(rows.map((r) => [r.template, Number(r.n)]));
}

export async function listRules(db: Db, sourceId: string, page: PageQuery): Promise<Page<RouteRule>> {
  const base = db.selectFrom('route_rules').where('traffic_source_id', '=', sourceId);
  const listed = await newestFirst(
    page,
    base,
    (q) => q.select(['id', 'template', 'created_at']),
    (r) => r,
  );
  const entries = await entriesUnder(
    db,
    sourceId,
    listed.data.map((r) => r.template),
  );
  return {
    ...listed,
    data: listed.data.map((r) => ({
      id: r.id,
      template: r.template,
      entries: entries.get(r.template) ?? 0,
      createdAt: r.created_at,
    })),
  };
}

/** A new rule; 409 naming the rule that matches the same paths. */
export async function addRule(
  deps: Dialected & { readonly db: Db; readonly clock: Clock },
  sourceId: string,
  template: string,
): Promise<RouteRule> {
  return deps.db.transaction().execute(async (trx) => {
    await lockSourceRules(trx, deps, sourceId);
    const existing = await trx
      .selectFrom('route_rules')
      .select(['id', 'template'])
      .where('traffic_source_id', '=', sourceId)
      .orderBy('template')
      .execute();
    const conflict = conflictingRule(template, existing);
    if (conflict) {
      const same =
        conflict.template === template
          ? 'is already a rule'
          : `matches the same paths as the rule ${conflict.template}`;
      throw new HttpError(409, 'rule_conflict', `${template} ${same} (id ${conflict.id})`, [
        { path: 'template', message: `conflicts with ${conflict.template}` },
      ]);
    }
    await requestReassignment(trx, sourceId);
    const now = isoNow(deps.clock);
    const id = newId();
    await trx
      .insertInto('route_rules')
      .values({ id, traffic_source_id: sourceId, template, created_at: now })
      .execute();
    // Listed at once, with origin `rule`, before the job has moved any entry to it.
    await findOrCreateRoute(trx, sourceId, { template, origin: 'rule' }, now);
    const entries = await entriesUnder(trx, sourceId, [template]);
    return { id, template, entries: entries.get(template) ?? 0, createdAt: now };
  });
}

/**
 * Removes a rule (false when the source has none of that id). Its template keeps its row (the
 * statistics of minutes whose entries are pruned stay filed under it) but is no longer `rule`.
 */
export async function removeRule(
  deps: Dialected & { readonly db: Db },
  sourceId: string,
  ruleId: string,
): Promise<boolean> {
  return deps.db.transaction().execute(async (trx) => {
    await lockSourceRules(trx, deps, sourceId);
    const rule = await trx
      .selectFrom('route_rules')
      .select(['id', 'template'])
      .where('id', '=', ruleId)
      .where('traffic_source_id', '=', sourceId)
      .executeTakeFirst();
    if (!rule) return false;
    await requestReassignment(trx, sourceId);
    await trx.deleteFrom('route_rules').where('id', '=', rule.id).execute();
    await trx
      .updateTable('routes')
      .set({ origin: 'inferred' })
      .where('traffic_source_id', '=', sourceId)
      .where('template', '=', rule.template)
      .where('origin', '=', 'rule')
      .execute();
    return true;
  });
}
