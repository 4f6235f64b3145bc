import { until } from '@tapline/testkit';
import { openTestDatabase } from '@tapline/testkit/daemon';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { OpenedDatabase } from './types.js';

/**
 * Issue 24, problem 3: a client held in a transaction whose server session ends (a fast shutdown
 * ends every session with 57P01) emitted 'error' with no listener, and that ended the daemon. Here
 * the session is ended from another connection while the transaction holds its client; without
 * `listenToEveryClient` the 'error' is an uncaught exception and the run fails.
 */
describe('a PostgreSQL session ended under a transaction', () => {
  let opened: OpenedDatabase | undefined;
  afterEach(() => opened?.close());

  it('fails the transaction, not the process, and the next query gets a new connection', async () => {
    opened = await openTestDatabase({ pool: 2 });
    const db = opened.db;
    const uncaught: unknown[] = [];
    const record = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', record);
    try {
      const transaction = db.transaction().execute(async (trx) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
        const pid = rows[0]!.pid;
        await sql`select pg_terminate_backend(${pid})`.execute(db);
        // The session is gone once the server no longer lists it; its client hears of it as it ends.
        await until(
          async () => (await sql`select 1 from pg_stat_activity where pid = ${pid}`.execute(db)).rows.length === 0,
          'the session to end',
        );
        await sql`select 1`.execute(trx);
      });
      await expect(transaction).rejects.toThrow();
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(db);
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      process.off('uncaughtException', record);
    }
    expect(uncaught).toEqual([]);
  });
});
