import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { getTrafficRecord } from '../http-traffic/repo.js';
import { MigrationError } from './migrate.js';
import { eachFreshDatabase, id, oldRecords, SOURCE, seedThreeTables } from '@tapline/testkit/daemon';

// SQLite only: its upgrade moves the entries in batches of 1,000, each committed; PostgreSQL's
// runs in the migration's one transaction, which an interruption rolls back whole.
const database = eachFreshDatabase();

it('resumes an interrupted upgrade after the last batch it committed, and stores the payloads compressed', async () => {
  const opened = database();
  await seedThreeTables(opened, 2_500);
  // An entry of the second batch names a domain that is gone (foreign keys were off when it went):
  // copying that batch fails, as a crash would stop it, after the first batch committed.
  await sql`pragma foreign_keys = off`.execute(opened.db);
  await sql`update http_traffic set domain_id = 'gone' where id = ${id(1_500, 0)}`.execute(opened.db);
  await sql`pragma foreign_keys = on`.execute(opened.db);
  const before = await oldRecords(opened.db);
  expect(before).toHaveLength(2_499); // the broken entry has no domain to join

  await expect(opened.migrate()).rejects.toThrow(MigrationError);
  const copied = await sql<{ n: number }>`select count(*) as n from http_traffic_compact`.execute(opened.db);
  expect(copied.rows[0]?.n).toBe(1_000);

  // The domain is put back; the next start continues after the first 1,000 rows (copying them
  // again would fail on their primary keys).
  await sql`insert into domains (id, traffic_source_id, value, created_at) values ('gone', ${SOURCE}, 'gone.example.com', '2026-11-20T10:00:00.000Z')`.execute(
    opened.db,
  );
  await opened.migrate();

  const after = await Promise.all(before.map((r) => getTrafficRecord(opened, SOURCE, r.id)));
  expect(after).toEqual(before);
  expect((await getTrafficRecord(opened, SOURCE, id(1_500, 0)))?.domain).toBe('gone.example.com');
  const kinds = await sql<{
    kind: string;
  }>`select distinct typeof(response_headers) as kind from http_traffic order by kind`.execute(opened.db);
  expect(kinds.rows.map((r) => r.kind)).toContain('blob');
  expect((await sql`pragma foreign_key_check`.execute(opened.db)).rows).toEqual([]);
});
