import { type FreshDatabase, freshDatabase } from '@tapline/testkit/daemon';
import { type Compilable, CompiledQuery, type RawBuilder, sql } from 'kysely';
import pg from 'pg';
import { escapeLiteral } from 'pg/lib/utils.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase, type OpenedDatabase } from './open.js';
import { isDatabaseUnavailable } from './unavailable.js';
import { executeTaking, executeWaiting } from './joined.js';
import { literal } from './pg-joined.js';

/** Statements of one transaction sent to PostgreSQL together (db/pg-joined.ts, decisions §20.22). */
describe('statements joined into one round trip', () => {
  let fresh: FreshDatabase;
  let opened: OpenedDatabase;
  beforeEach(async () => {
    fresh = await freshDatabase();
    opened = openDatabase(fresh.locator, { pool: 1 });
    await sql`create table joined_test (k text primary key, v bytea)`.execute(opened.db);
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await opened.close();
    await fresh.drop();
  });

  /** A statement written as SQL, for the helpers that take a builder. */
  const raw = <R>(db: OpenedDatabase['db'], query: RawBuilder<R>): Compilable<R> => ({
    compile: () => query.compile(db),
  });
  const insert = (db: OpenedDatabase['db'], k: string, v: Buffer | null = null) =>
    raw(db, sql`insert into joined_test (k, v) values (${k}, ${v})`);

  const values = [
    "it's",
    'a \\ backslash',
    "\\' both",
    "''",
    '',
    'line\nbreak\ttab\r',
    '$1 $2',
    'ünïcødé ✓ 𝄞',
    '-- a comment',
    "'); drop table joined_test; --",
    "E'\\x00'",
  ];

  it('spells every value as the text its parameter would have been', async () => {
    const { db, dialect } = opened;
    for (const value of values) {
      const query = sql<{
        v: string;
        n: number;
        nothing: null;
        big: number;
      }>`select ${value}::text as v, ${-12.5e-3}::float8 as n, ${null}::text as nothing, ${2 ** 40}::int8 as big`;
      const [asParameters] = (await query.execute(db)).rows;
      const [asLiterals] = await executeTaking(db, dialect, raw(db, query));
      expect(asLiterals).toEqual(asParameters);
      expect(asLiterals?.v).toBe(value);
      expect(literal(value)).toBe(escapeLiteral(value));
    }
    const bytes = Buffer.from([0, 1, 39, 92, 255, 10]);
    await db.transaction().execute(async (trx) => {
      await executeWaiting(trx, dialect, insert(trx, 'b', bytes));
    });
    const stored = await sql<{ v: Buffer }>`select v from joined_test where k = 'b'`.execute(db);
    expect(stored.rows[0]?.v).toEqual(bytes);
    expect(literal(bytes)).toBe(escapeLiteral(`\\x${bytes.toString('hex')}`));
  });

  it('sends what waits with the next statement, in order, in one round trip', async () => {
    const { db, dialect } = opened;
    const sent = vi.spyOn(pg.Client.prototype, 'query');
    const seen = await db.transaction().execute(async (trx) => {
      const first = await executeTaking(
        trx,
        dialect,
        raw(trx, sql<{ n: number }>`select count(*)::int as n from joined_test`),
      );
      for (const k of ['a', "b'", 'c\\']) await executeWaiting(trx, dialect, insert(trx, k));
      await executeWaiting(
        trx,
        dialect,
        raw(trx, sql`update joined_test set v = ${Buffer.from('x')} where k = ${'a'}`),
      );
      const then = await executeTaking(
        trx,
        dialect,
        raw(trx, sql<{ k: string; v: Buffer | null }>`select k, v from joined_test order by k`),
      );
      return { first, then };
    });
    // begin with the first read; the three inserts and the update with the second; the commit.
    expect(sent).toHaveBeenCalledTimes(3);
    expect(sent.mock.calls.map(([text]) => String(text).split(';\n').length)).toEqual([2, 5, 1]);
    expect(seen.first).toEqual([{ n: 0 }]);
    expect(seen.then).toEqual([
      { k: 'a', v: Buffer.from('x') },
      { k: "b'", v: null },
      { k: 'c\\', v: null },
    ]);
  });

  it("fails the next statement with a waiting one's error, and the transaction stores nothing", async () => {
    const { db, dialect } = opened;
    await sql`insert into joined_test (k) values ('taken')`.execute(db);
    const failed = db.transaction().execute(async (trx) => {
      await executeWaiting(trx, dialect, insert(trx, 'new'));
      await executeWaiting(trx, dialect, insert(trx, 'taken'));
      await executeTaking(trx, dialect, raw(trx, sql`select 1`));
    });
    await expect(failed).rejects.toMatchObject({ code: '23505' });
    const left = await sql<{ k: string }>`select k from joined_test order by k`.execute(db);
    expect(left.rows).toEqual([{ k: 'taken' }]);
    // The connection is whole again: nothing of that transaction waits on it.
    await db.transaction().execute(async (trx) => {
      await executeWaiting(trx, dialect, insert(trx, 'after'));
    });
    expect((await sql<{ k: string }>`select k from joined_test order by k`.execute(db)).rows).toEqual([
      { k: 'after' },
      { k: 'taken' },
    ]);
  });

  it('undoes what waits at a rollback to a savepoint, so a failing statement there is undone, not sent', async () => {
    const { db, dialect } = opened;
    await sql`insert into joined_test (k) values ('taken')`.execute(db);
    const control = (text: string) => CompiledQuery.raw(text, []);
    await db.transaction().execute(async (trx) => {
      await executeWaiting(trx, dialect, insert(trx, 'kept'));
      await trx.executeQuery(control('savepoint "sp"'));
      await executeWaiting(trx, dialect, insert(trx, 'taken'));
      await trx.executeQuery(control('rollback to "sp"'));
      await executeWaiting(trx, dialect, insert(trx, 'after'));
    });
    expect((await sql<{ k: string }>`select k from joined_test order by k`.execute(db)).rows).toEqual([
      { k: 'after' },
      { k: 'kept' },
      { k: 'taken' },
    ]);
  });

  it("answers a NUL in a joined statement's value as PostgreSQL answers the parameter, not as an outage", async () => {
    const { db, dialect } = opened;
    const query = sql<{ v: string }>`select ${'a\u0000b'}::text as v`;
    const asParameter = await query.execute(db).then(
      () => undefined,
      (error: unknown) => error,
    );
    const joined = await db
      .transaction()
      .execute(async (trx) => {
        await executeWaiting(trx, dialect, insert(trx, 'before the NUL'));
        await executeTaking(trx, dialect, raw(trx, query));
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(asParameter).toMatchObject({ code: '22021' });
    expect(joined).toMatchObject({ code: '22021' });
    expect(isDatabaseUnavailable(joined)).toBe(false);
    // The transaction's waiting insert went with it, and the connection serves the next one.
    await executeTaking(db, dialect, insert(db, 'after'));
    expect((await sql<{ k: string }>`select k from joined_test`.execute(db)).rows).toEqual([{ k: 'after' }]);
  });

  it('sends a waiting statement at once outside a transaction, and nothing for a transaction that wrote nothing', async () => {
    const { db, dialect } = opened;
    await executeWaiting(db, dialect, insert(db, 'alone'));
    expect((await sql<{ k: string }>`select k from joined_test`.execute(db)).rows).toEqual([{ k: 'alone' }]);
    const sent = vi.spyOn(pg.Client.prototype, 'query');
    await expect(
      db.transaction().execute(async () => {
        throw new Error('given up before any statement');
      }),
    ).rejects.toThrow('given up');
    expect(sent).not.toHaveBeenCalled();
  });
});
