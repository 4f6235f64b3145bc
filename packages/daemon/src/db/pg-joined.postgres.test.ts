import { type FreshDatabase, freshDatabase } from '@tapline/testkit/daemon';
import fc from 'fast-check';
import { type Compilable, CompiledQuery, type RawBuilder, sql } from 'kysely';
import pg from 'pg';
import { escapeLiteral } from 'pg/lib/utils.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase, type OpenedDatabase } from './open.js';
import { isDatabaseUnavailable } from './unavailable.js';
import { executeHeld, executeKeptHeld, executeKeptTaking, executeTaking, executeWaiting, KeptRead } from './joined.js';
import { literal } from './pg-joined.js';
import { gatheredLookup } from './gathered.js';

/** A statement written as SQL, for the helpers that take a builder. */
const raw = <R>(db: OpenedDatabase['db'], query: RawBuilder<R>): Compilable<R> => ({
  compile: () => query.compile(db),
});

/**
 * Each test of the enclosing block on a fresh database: `count` pools of one connection on it,
 * handed to `use`, and `setup` run through the first; all closed, and the database dropped, after.
 */
function onFreshDatabase(
  use: (pools: OpenedDatabase[]) => void,
  setup: (db: OpenedDatabase['db']) => Promise<unknown>,
  count = 1,
): void {
  let fresh: FreshDatabase;
  let pools: OpenedDatabase[] = [];
  beforeEach(async () => {
    fresh = await freshDatabase();
    pools = Array.from({ length: count }, () => openDatabase(fresh.locator, { pool: 1 }));
    use(pools);
    const [first] = pools;
    if (first) await setup(first.db);
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const pool of pools) await pool.close();
    await fresh.drop();
  });
}

/** Statements of one transaction sent to PostgreSQL together (db/pg-joined.ts, decisions §20.22). */
describe('statements joined into one round trip', () => {
  let opened: OpenedDatabase;
  onFreshDatabase(
    ([pool]) => (opened = pool!),
    (db) => sql`create table joined_test (k text primary key, v bytea)`.execute(db),
  );

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

/** Reads held on their connection until the next statement, their rows read after (decisions §20.37). */
describe('statements held for their rows', () => {
  let opened: OpenedDatabase;
  onFreshDatabase(
    ([pool]) => (opened = pool!),
    async (db) => {
      await sql`create table held_test (k text primary key, n integer)`.execute(db);
      await sql`insert into held_test values ('a', 1), ('b', 2), ('it''s', 3)`.execute(db);
    },
  );

  const read = (db: OpenedDatabase['db'], k: string) =>
    raw(db, sql<{ k: string; n: number }>`select k, n from held_test where k = ${k} for update`);

  it('gives each held read its own rows, all sent in order with the next statement, in one round trip', async () => {
    const { db, dialect } = opened;
    const sent = vi.spyOn(pg.Client.prototype, 'query');
    const seen = await db.transaction().execute(async (trx) => {
      const a = await executeHeld(trx, dialect, read(trx, 'a'));
      await executeWaiting(trx, dialect, raw(trx, sql`update held_test set n = n + 10 where k = ${'a'}`));
      const quoted = await executeHeld(trx, dialect, read(trx, "it's"));
      const none = await executeHeld(trx, dialect, read(trx, 'missing'));
      // The read after the update sees it: the statements ran in the order they were given.
      const after = await executeTaking(trx, dialect, read(trx, 'a'));
      return { a: await a.rows(), quoted: await quoted.rows(), none: await none.rows(), after };
    });
    // begin and the five statements together; the commit.
    expect(sent.mock.calls.map(([text]) => String(text).split(';\n').length)).toEqual([6, 1]);
    expect(seen).toEqual({
      a: [{ k: 'a', n: 1 }],
      quoted: [{ k: "it's", n: 3 }],
      none: [],
      after: [{ k: 'a', n: 11 }],
    });
  });

  it('sends what waits when its rows are read before any statement took it, rather than waiting for ever', async () => {
    const { db, dialect } = opened;
    const sent = vi.spyOn(pg.Client.prototype, 'query');
    const rows = await db.transaction().execute(async (trx) => {
      await executeWaiting(trx, dialect, raw(trx, sql`update held_test set n = 0 where k = ${'b'}`));
      const b = await executeHeld(trx, dialect, read(trx, 'b'));
      return b.rows();
    });
    expect(rows).toEqual([{ k: 'b', n: 0 }]);
    expect(sent.mock.calls.map(([text]) => String(text).split(';\n').length)).toEqual([3, 1]);
  });

  it('rejects a held read with the error of the statements it went with, unread or read, and stores nothing', async () => {
    const { db, dialect } = opened;
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      let held: { rows(): Promise<unknown[]> } | undefined;
      const failed = db.transaction().execute(async (trx) => {
        held = await executeHeld(trx, dialect, read(trx, 'a'));
        // Never read: its failure must reject nothing on its own.
        await executeHeld(trx, dialect, read(trx, 'b'));
        await executeWaiting(trx, dialect, raw(trx, sql`insert into held_test values (${'a'}, 9)`));
        await executeTaking(trx, dialect, raw(trx, sql`select 1`));
      });
      await expect(failed).rejects.toMatchObject({ code: '23505' });
      await expect(held?.rows()).rejects.toMatchObject({ code: '23505' });
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
    expect((await sql<{ n: number }>`select n from held_test where k = 'a'`.execute(db)).rows).toEqual([{ n: 1 }]);
  });

  it('fails a held read undone by a rollback to a savepoint when read, never leaving it waiting', async () => {
    const { db, dialect } = opened;
    const control = (text: string) => CompiledQuery.raw(text, []);
    const outcome = await db.transaction().execute(async (trx) => {
      await trx.executeQuery(control('savepoint "sp"'));
      const dropped = await executeHeld(trx, dialect, read(trx, 'a'));
      await trx.executeQuery(control('rollback to "sp"'));
      return dropped.rows().then(
        () => 'read',
        (error: unknown) => String(error),
      );
    });
    expect(outcome).toMatch(/dropped with its transaction/);
  });

  it('runs at once outside a transaction, and with its parameters when a value holds a NUL', async () => {
    const { db, dialect } = opened;
    const alone = await executeHeld(db, dialect, read(db, 'b'));
    expect(await alone.rows()).toEqual([{ k: 'b', n: 2 }]);
    const nul = await db
      .transaction()
      .execute(async (trx) => {
        const held = await executeHeld(trx, dialect, raw(trx, sql<{ v: string }>`select ${'a\u0000b'}::text as v`));
        return held.rows().then(
          () => undefined,
          (error: unknown) => error,
        );
      })
      .catch((error: unknown) => error);
    expect(nul).toMatchObject({ code: '22021' });
  });
});

/** Statements kept prepared on their connection and run by `execute` among the joined ones (decisions §20.34). */
describe('statements kept prepared in the joined text', () => {
  let opened: OpenedDatabase;
  let other: OpenedDatabase;
  onFreshDatabase(
    ([first, second]) => ([opened, other] = [first!, second!]),
    (db) => sql`create table kept_test (k text primary key, n int)`.execute(db),
    2,
  );

  const ROWS = 'select k::text as k, n::integer as n from kept_test where k = any($1::text[]) order by k';
  const ECHO = 'select v::text as v, n::integer as n from unnest($1::text[]) with ordinality as t(v, n) order by n';
  const prepared = async () =>
    (
      await sql<{
        name: string;
        generic_plans: string;
        custom_plans: string;
      }>`select name, generic_plans, custom_plans from pg_prepared_statements order by name`.execute(opened.db)
    ).rows.map((r) => ({ ...r, generic_plans: Number(r.generic_plans), custom_plans: Number(r.custom_plans) }));
  const planMode = async () =>
    (await sql<{ plan_cache_mode: string }>`show plan_cache_mode`.execute(opened.db)).rows[0]?.plan_cache_mode;

  it('hands every value back as its array parameter would, hostile ones too', async () => {
    const hostile = [
      "it's",
      'a \\ backslash',
      '"quoted"',
      '{braces}',
      'a,comma',
      'NULL',
      null,
      '',
      ' spaced ',
      "'); deallocate all; --",
      '$1',
      'ünïcødé ✓ 𝄞',
      'line\nbreak',
    ];
    const rows = await executeKeptTaking<{ v: string | null; n: number }>(opened.db, ECHO, [hostile]);
    expect(rows.map((r) => r.v)).toEqual(hostile);
    const asParameter = await sql<{ v: string | null }>`select unnest(${hostile}::text[]) as v`.execute(opened.db);
    expect(asParameter.rows.map((r) => r.v)).toEqual(hostile);
    // A NUL cannot be in a query's text: the statement keeps its parameter and PostgreSQL refuses it as one.
    await expect(executeKeptTaking(opened.db, ECHO, [['a\0b']])).rejects.toMatchObject({ code: '22021' });
  });

  it('hands any text back as it went, with standard_conforming_strings off too', async () => {
    // Off, a backslash in a plain '…' string escapes: only texts with neither quote nor backslash
    // are spelled that way, the others as E'…' (escapeLiteral), which reads alike either way.
    await sql`set standard_conforming_strings = off`.execute(opened.db);
    const text = fc.string({ unit: 'binary', maxLength: 40 }).filter((v) => !v.includes('\0'));
    const spiced = fc.oneof(text, fc.constantFrom("'", '\\', "\\'", "'\\", '"', '{', '}', ',', 'NULL', '\\x00'));
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.constant(null),
            spiced,
            text.map((v) => `${v}'\\${v}`),
          ),
        ),
        async (values) => {
          const rows = await executeKeptTaking<{ v: string | null }>(opened.db, ECHO, [values]);
          expect(rows.map((r) => r.v)).toEqual(values);
        },
      ),
      { numRuns: 200 },
    );
    expect(
      (await sql<{ standard_conforming_strings: string }>`show standard_conforming_strings`.execute(opened.db)).rows,
    ).toEqual([{ standard_conforming_strings: 'off' }]);
  });

  it('is prepared once a connection, runs its generic plan, and leaves the plan setting as it was', async () => {
    await sql`insert into kept_test values ('a', 1), ('b', 2), ('c', 3)`.execute(opened.db);
    const sent = vi.spyOn(pg.Client.prototype, 'query');
    for (let i = 0; i < 7; i++)
      expect(await executeKeptTaking(opened.db, ROWS, [['c', 'a']])).toEqual([
        { k: 'a', n: 1 },
        { k: 'c', n: 3 },
      ]);
    // One `prepare`, then one round trip a statement.
    expect(sent.mock.calls.filter(([text]) => /^prepare /.test(String(text)))).toHaveLength(1);
    expect(sent).toHaveBeenCalledTimes(8);
    const keptName: unknown = expect.stringMatching(/^tapline_joined_\d+$/);
    expect(await prepared()).toEqual([{ name: keptName, generic_plans: 7, custom_plans: 0 }]);
    expect(await planMode()).toBe('auto');
  });

  it('goes with what waits, in order, and outlives a rollback and a failed statement', async () => {
    const { db, dialect } = opened;
    const sent = vi.spyOn(pg.Client.prototype, 'query');
    await expect(
      db.transaction().execute(async (trx) => {
        await executeWaiting(trx, dialect, { compile: () => sql`insert into kept_test values ('w', 9)`.compile(trx) });
        expect(await executeKeptTaking(trx, ROWS, [['w']])).toEqual([{ k: 'w', n: 9 }]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    // The waiting insert alone, the `prepare` alone, then the statement: never reordered.
    expect(sent.mock.calls.map(([text]) => String(text).split(/;\n/)[0]?.split(' ')[0])).toEqual([
      'begin',
      'prepare',
      'set',
      'rollback',
    ]);
    // Prepared statements outlive their transaction: the next one only executes it.
    sent.mockClear();
    await db.transaction().execute(async (trx) => {
      await executeWaiting(trx, dialect, { compile: () => sql`insert into kept_test values ('x', 1)`.compile(trx) });
      expect(await executeKeptTaking(trx, ROWS, [['w', 'x']])).toEqual([{ k: 'x', n: 1 }]);
    });
    expect(sent).toHaveBeenCalledTimes(2);
    // A failing statement: its transaction's rollback takes the plan setting back.
    await expect(
      db.transaction().execute(async (trx) => {
        await executeWaiting(trx, dialect, { compile: () => sql`insert into kept_test values ('y', 1)`.compile(trx) });
        await executeKeptTaking(trx, 'select 1 / $1::integer as q', [0]);
      }),
    ).rejects.toMatchObject({ code: '22012' });
    await expect(executeKeptTaking(opened.db, 'select 1 / $1::integer as q', [0])).rejects.toMatchObject({
      code: '22012',
    });
    expect(await planMode()).toBe('auto');
    expect(await executeKeptTaking(opened.db, 'select 1 / $1::integer as q', [1])).toEqual([{ q: 1 }]);
    expect((await sql<{ k: string }>`select k from kept_test order by k`.execute(db)).rows).toEqual([{ k: 'x' }]);
  });

  it('is prepared again on a new connection after its own was ended, and holds after a migration', async () => {
    await sql`insert into kept_test values ('a', 1)`.execute(opened.db);
    expect(await executeKeptTaking(opened.db, ROWS, [['a']])).toEqual([{ k: 'a', n: 1 }]);
    // As a restart does: the server ends the pool's one connection; the next query takes a new one.
    await sql`select pg_terminate_backend(pid) from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid()`.execute(other.db);
    let rows: unknown;
    for (let attempt = 0; rows === undefined; attempt++) {
      try {
        rows = await executeKeptTaking(opened.db, ROWS, [['a']]);
      } catch (e) {
        // The connection's end, seen by the query that took it before the pool did: a 503, never a 500.
        if (attempt > 2 || !isDatabaseUnavailable(e)) throw e;
      }
    }
    expect(rows).toEqual([{ k: 'a', n: 1 }]);
    // Another daemon's migration changes a result column's type: the cast keeps the result's.
    await sql`alter table kept_test alter column n type bigint`.execute(other.db);
    await sql`alter table kept_test add column later text`.execute(other.db);
    expect(await executeKeptTaking(opened.db, ROWS, [['a']])).toEqual([{ k: 'a', n: 1 }]);
  });

  it('is prepared again after the server dropped it, where remembered it failed every later use', async () => {
    await sql`insert into kept_test values ('a', 1)`.execute(opened.db);
    expect(await executeKeptTaking(opened.db, ROWS, [['a']])).toEqual([{ k: 'a', n: 1 }]);
    // A pooler's reset, or a hand on the session: the pool's one connection loses what it prepared.
    await sql`discard all`.execute(opened.db);
    await expect(executeKeptTaking(opened.db, ROWS, [['a']])).rejects.toMatchObject({ code: '26000' });
    expect(await executeKeptTaking(opened.db, ROWS, [['a']])).toEqual([{ k: 'a', n: 1 }]);
    // In a transaction too: that one fails (ingest retries it), the next prepares it again.
    await sql`deallocate all`.execute(opened.db);
    await expect(opened.db.transaction().execute((trx) => executeKeptTaking(trx, ROWS, [['a']]))).rejects.toMatchObject(
      { code: '26000' },
    );
    expect(await opened.db.transaction().execute((trx) => executeKeptTaking(trx, ROWS, [['a']]))).toEqual([
      { k: 'a', n: 1 },
    ]);
    expect(await planMode()).toBe('auto');
  });

  it('holds a kept read for the next statement, its plan setting around it, and prepares it again once dropped', async () => {
    await sql`insert into kept_test values ('a', 1), ('b', 2)`.execute(opened.db);
    const heldRead = (keys: string[]) =>
      opened.db.transaction().execute(async (trx) => {
        const held = await executeKeptHeld<{ k: string; n: number }>(trx, ROWS, [keys]);
        const next = await executeTaking(trx, opened.dialect, {
          compile: () => sql<{ mode: string }>`select current_setting('plan_cache_mode') as mode`.compile(trx),
        });
        return { rows: await held.rows(), next };
      });
    const sent = vi.spyOn(pg.Client.prototype, 'query');
    // The first use sends what waits (begin), then prepares it alone; then the setting, the execute,
    // its reset and the next statement go together. Later uses: begin with them.
    expect(await heldRead(['b', 'a'])).toEqual({
      rows: [
        { k: 'a', n: 1 },
        { k: 'b', n: 2 },
      ],
      next: [{ mode: 'auto' }],
    });
    expect(sent.mock.calls.map(([text]) => String(text).split(';\n').length)).toEqual([1, 1, 4, 1]);
    sent.mockClear();
    expect((await heldRead(['a'])).rows).toEqual([{ k: 'a', n: 1 }]);
    expect(sent.mock.calls.map(([text]) => String(text).split(';\n').length)).toEqual([5, 1]);
    expect(await prepared()).toMatchObject([{ generic_plans: 2, custom_plans: 0 }]);
    // Dropped by a hand on the session: that transaction fails (ingest runs it again), the next prepares it again.
    await sql`deallocate all`.execute(opened.db);
    await expect(heldRead(['a'])).rejects.toMatchObject({ code: '26000' });
    expect((await heldRead(['b'])).rows).toEqual([{ k: 'b', n: 2 }]);
    expect(await planMode()).toBe('auto');
  });

  it('answers a gathered lookup from the untyped text at once when the kept one first fails on a type', async () => {
    const [id, absent] = ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'];
    await sql`insert into kept_test values (${id}, 1)`.execute(opened.db);
    const lookup = gatheredLookup<{ k: string; n: number }>(opened.db, opened.dialect.stored, {
      column: 'k',
      build: (_db, ks) => ({
        compile: () =>
          sql<{ k: string; n: number }>`select k, n from kept_test where k in (${sql.join(ks)})`.compile(opened.db),
      }),
      keyOf: (row) => row.k,
      kept: 'select k::text as k, n::integer as n from kept_test where k = any($1::text[])',
    });
    expect(await lookup(id)).toEqual({ k: id, n: 1 });
    // Another daemon's migration makes the key a uuid: the kept text fails (42883), the untyped one
    // runs. The callers of that turn get their rows, as they would have before it was kept (a token's
    // lookup that failed was a 500 for every request of the turn).
    await sql`alter table kept_test alter column k type uuid using k::uuid`.execute(other.db);
    const sent = vi.spyOn(pg.Client.prototype, 'query');
    expect(await Promise.all([lookup(id), lookup(absent)])).toEqual([{ k: id, n: 1 }, undefined]);
    expect(sent.mock.calls.filter(([text]) => /^set /.test(String(text)))).toHaveLength(1);
    expect(await lookup(id)).toEqual({ k: id, n: 1 });
    expect(sent.mock.calls.filter(([text]) => /^set /.test(String(text)))).toHaveLength(1);
  });

  it('answers a gathered lookup kept prepared as the untyped one, for hostile keys too', async () => {
    const keys = ["it's", 'a \\ b', '"q"', '{x,y}', 'NULL', '', 'ünï ✓', "'); deallocate all; --", 'k'];
    for (const [i, k] of keys.entries()) await sql`insert into kept_test values (${k}, ${i})`.execute(opened.db);
    const lookups = [undefined, 'select k::text as k, n::integer as n from kept_test where k = any($1::text[])'].map(
      (kept) =>
        gatheredLookup<{ k: string; n: number }>(opened.db, opened.dialect.stored, {
          column: 'k',
          build: (_db, ks) => ({
            compile: () =>
              sql<{ k: string; n: number }>`select k, n from kept_test where k in (${sql.join(ks)})`.compile(opened.db),
          }),
          keyOf: (row) => row.k,
          kept,
        }),
    );
    const sent = vi.spyOn(pg.Client.prototype, 'query');
    for (const lookup of lookups) {
      // Gathered: every key asked in one turn goes in one query; one that is not there is undefined.
      const found = await Promise.all([...keys, 'absent'].map((k) => lookup(k)));
      expect(found).toEqual([...keys.map((k, n) => ({ k, n })), undefined]);
      // A NUL keeps its parameter: refused by PostgreSQL as the untyped lookup's is.
      await expect(lookup('a\0b')).rejects.toMatchObject({ code: '22021' });
    }
    expect(sent.mock.calls.filter(([text]) => /^prepare /.test(String(text)))).toHaveLength(1);
  });

  it('reads a held kept read the untyped way once a statement that took it failed on its type, read or not', async () => {
    const read = new KeptRead();
    const KEYED = 'select k::text as k from kept_test where k = any($1::text[])';
    const id = '00000000-0000-4000-8000-000000000001';
    await sql`insert into kept_test values (${id}, 1)`.execute(opened.db);
    const group = (readIt: boolean) =>
      opened.db.transaction().execute(async (trx) => {
        const held = await read.held(
          trx,
          () => executeKeptHeld<{ k: string }>(trx, KEYED, [[id]]),
          async () =>
            (await sql<{ k: string }>`select k::text as k from kept_test where k in (${id})`.execute(trx)).rows,
        );
        // Another statement takes it, as the webhooks' read takes the rules' read in a group.
        await executeTaking(trx, opened.dialect, { compile: () => sql`select 1`.compile(trx) });
        return readIt ? held.rows() : held.ready;
      });
    expect(await group(true)).toEqual([{ k: id }]);
    await sql`alter table kept_test alter column k type uuid using k::uuid`.execute(other.db);
    // The failure comes back with the statement that took it; its rows are never read.
    await expect(group(false)).rejects.toMatchObject({ code: '42883' });
    // From then on it is read at once, untyped.
    expect(await group(false)).toEqual([{ k: id }]);
  });

  it('forgets only the kept statement a 26000 names, where forgetting both failed the next group on 42P05', async () => {
    await sql`insert into kept_test values ('a', 1)`.execute(opened.db);
    const group = () =>
      opened.db.transaction().execute(async (trx) => {
        const held = await executeKeptHeld<{ k: string; n: number }>(trx, ROWS, [['a']]);
        const echoed = await executeKeptTaking<{ v: string; n: number }>(trx, ECHO, [['x']]);
        return { rows: await held.rows(), echoed };
      });
    const answer = { rows: [{ k: 'a', n: 1 }], echoed: [{ v: 'x', n: 1 }] };
    expect(await group()).toEqual(answer);
    expect(await prepared()).toHaveLength(2);
    // The echo's statement dropped by hand; the held one's is still there.
    const echoName = (
      await sql<{ name: string }>`select name from pg_prepared_statements where statement like '%unnest%'`.execute(
        opened.db,
      )
    ).rows[0]?.name;
    await sql.raw(`deallocate ${echoName}`).execute(opened.db);
    await expect(group()).rejects.toMatchObject({ code: '26000' });
    expect(await group()).toEqual(answer);
    expect(await planMode()).toBe('auto');
  });

  it('reads the untyped way from the first failure on a type on, and fails that one statement', async () => {
    const read = new KeptRead();
    // Read as ingest reads it, in a transaction: a failure is the transaction's.
    const inTransaction = { isTransaction: true };
    const keyed = (k: string) =>
      read.read(
        inTransaction,
        () =>
          executeKeptTaking<{ k: string }>(opened.db, 'select k::text as k from kept_test where k = any($1::text[])', [
            [k],
          ]),
        async () =>
          (await sql<{ k: string }>`select k::text as k from kept_test where k in (${k})`.execute(opened.db)).rows,
      );
    const id = '00000000-0000-4000-8000-000000000001';
    await sql`insert into kept_test values (${id}, 1)`.execute(opened.db);
    expect(await keyed(id)).toEqual([{ k: id }]);
    // A column made a type text does not compare with: the kept text fails (42883), the untyped one runs.
    await sql`alter table kept_test alter column k type uuid using k::uuid`.execute(other.db);
    await expect(keyed(id)).rejects.toMatchObject({ code: '42883' });
    expect(await keyed(id)).toEqual([{ k: id }]);
    // Any other error leaves it kept.
    const other_ = new KeptRead();
    let kept = 0;
    const failing = () =>
      other_.read(
        inTransaction,
        () => {
          kept += 1;
          return executeKeptTaking(opened.db, 'select 1 / $1::integer as q', [0]);
        },
        () => Promise.resolve([]),
      );
    await expect(failing()).rejects.toMatchObject({ code: '22012' });
    await expect(failing()).rejects.toMatchObject({ code: '22012' });
    expect(kept).toBe(2);
  });
});
