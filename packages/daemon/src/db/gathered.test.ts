import { adminShutdown, openTestDatabase } from '@tapline/testkit/daemon';
import type { CompiledQuery, QueryResult } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUser } from '../auth/users.js';
import { systemClock } from '../clock.js';
import { gatheredLookup, type LookupDb, STALLED_AFTER_MS } from './gathered.js';
import { preparedLookup } from './prepared.js';
import type { OpenedDatabase } from './open.js';

/** The database as a gathered lookup sees it, counting its queries and able to hold their answers back. */
function watched(opened: OpenedDatabase) {
  const sent: Array<readonly unknown[]> = [];
  let read = 0;
  let hold: Promise<void> | undefined;
  let failure: Error | undefined;
  const db: LookupDb = {
    selectFrom: opened.db.selectFrom.bind(opened.db),
    async executeQuery<R>(query: CompiledQuery<R>): Promise<QueryResult<R>> {
      sent.push(query.parameters);
      if (failure) throw failure;
      const result = await opened.db.executeQuery(query);
      read += 1;
      // The rows are read; the caller sees them only once the test lets go.
      await hold;
      return result;
    },
  };
  return {
    db,
    sent,
    read: () => read,
    holdAnswers: () => {
      let release = () => {};
      hold = new Promise((resolve) => (release = resolve));
      return () => ((hold = undefined), release());
    },
    /** Queries from now on answer at once; those held so far stay held. */
    holdNoMore: () => void (hold = undefined),
    fail: (error: Error | undefined) => void (failure = error),
  };
}

const nameLookup = (db: LookupDb, opened: OpenedDatabase) =>
  gatheredLookup(db, opened.dialect.stored, {
    column: 'id',
    build: (db, ids) => db.selectFrom('users').select(['id', 'name']).where('id', 'in', ids),
    keyOf: (row) => row.id,
  });

describe('a gathered lookup (docs/decisions.md §16.6)', () => {
  let opened: OpenedDatabase;
  let ids: string[];
  beforeEach(async () => {
    opened = await openTestDatabase();
    ids = [];
    for (const name of ['ana', 'bob', 'cy'])
      ids.push((await createUser(opened.db, systemClock, { email: `${name}@example.com`, name })).id);
  });
  afterEach(() => opened.close());

  it('answers the calls made together with one query, each key asked once, a missing one undefined', async () => {
    const w = watched(opened);
    const byId = nameLookup(w.db, opened);
    const [ana, bob, cy] = ids;
    const missing = '00000000-0000-4000-8000-000000000000';
    const answers = await Promise.all([ana, bob, ana, missing, cy].map((id) => byId(id!)));
    expect(answers.map((row) => row?.name)).toEqual(['ana', 'bob', 'ana', undefined, 'cy']);
    expect(w.sent).toHaveLength(1);
    expect(w.sent[0]).toHaveLength(4);
  });

  it('answers each key as a lookup of its own would, a key in upper case too (SQLite finds it, PostgreSQL not)', async () => {
    const byId = nameLookup(opened.db, opened);
    const alone = preparedLookup(opened.db, (db, id) =>
      db.selectFrom('users').select(['id', 'name']).where('id', '=', id),
    );
    const keys = [ids[0]!, ids[0]!.toUpperCase(), ids[1]!.toUpperCase(), 'not-an-id'];
    const expected = [];
    for (const key of keys) expected.push(await alone(key));
    expect(await Promise.all(keys.map((key) => byId(key)))).toEqual(expected);
    expect(expected[1]).toEqual(opened.dialect.backend === 'sqlite' ? expected[0] : undefined);
  });

  it('answers a call made while a query is in flight with the next query, which reads what changed meanwhile', async () => {
    const w = watched(opened);
    const byId = nameLookup(w.db, opened);
    const release = w.holdAnswers();
    const first = byId(ids[0]!);
    // The first query has read its row; its answer is held back while the row changes.
    await expect.poll(w.read).toBe(1);
    await opened.db.updateTable('users').set({ name: 'ana renamed' }).where('id', '=', ids[0]!).execute();
    const second = byId(ids[0]!);
    const third = byId(ids[1]!);
    release();
    expect((await first)?.name).toBe('ana');
    expect((await second)?.name).toBe('ana renamed');
    expect((await third)?.name).toBe('bob');
    // The two calls that waited went together into the second query.
    expect(w.sent).toHaveLength(2);
    expect(w.sent[1]).toHaveLength(2);
  });

  it('rejects every call waiting on a query that fails with its error, and serves the next ones', async () => {
    const w = watched(opened);
    const byId = nameLookup(w.db, opened);
    const failure = adminShutdown();
    w.fail(failure);
    const answers = await Promise.allSettled(ids.map((id) => byId(id)));
    expect(answers).toEqual(ids.map(() => ({ status: 'rejected', reason: failure })));
    expect(w.sent).toHaveLength(1);
    w.fail(undefined);
    expect((await byId(ids[2]!))?.name).toBe('cy');
  });

  it('does not let a query that hangs hold up the calls after it: the next query goes after a second', async () => {
    const w = watched(opened);
    const byId = nameLookup(w.db, opened);
    // The first query's answer never comes back (a connection gone half-open), until the end.
    const release = w.holdAnswers();
    const first = byId(ids[0]!);
    await expect.poll(w.read).toBe(1);
    w.holdNoMore();
    const started = Date.now();
    const second = byId(ids[1]!);
    // Answered by a query of its own, sent once the first had been out for STALLED_AFTER_MS.
    await expect.poll(w.read, { timeout: 5_000 }).toBe(2);
    release();
    expect((await second)?.name).toBe('bob');
    expect(Date.now() - started).toBeGreaterThanOrEqual(STALLED_AFTER_MS - 50);
    expect((await first)?.name).toBe('ana');
    expect(w.sent).toHaveLength(2);
  });

  it('asks for at most 100 keys a query; the rest go in the next one', async () => {
    const w = watched(opened);
    const byId = nameLookup(w.db, opened);
    const keys = Array.from({ length: 250 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const answers = await Promise.all([...keys, ids[1]!].map((id) => byId(id)));
    expect(answers.filter(Boolean).map((row) => row?.name)).toEqual(['bob']);
    expect(w.sent.map((parameters) => parameters.length)).toEqual([100, 100, 51]);
  });
});
