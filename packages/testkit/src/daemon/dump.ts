import { COPIED_TABLES, type Store } from '@tapline/daemon';
import { sql } from 'kysely';

type Row = Record<string, unknown>;

function byKey(key: readonly string[]) {
  return (a: Row, b: Row): number => {
    for (const column of key) {
      const [x, y] = [a[column], b[column]];
      if (x === y) continue;
      if (typeof x === 'number' && typeof y === 'number') return x - y;
      return String(x) < String(y) ? -1 : 1;
    }
    return 0;
  };
}

/**
 * Every row of every table, each table in key order: what "the same database" means when a test
 * compares a copy with its original. Sorted here, in code-unit order, because PostgreSQL orders
 * text by its locale and SQLite by bytes: dumps of the same rows must list them alike.
 */
export async function dumpTables({ db, dialect }: Store): Promise<Record<string, Row[]>> {
  const tables: Record<string, Row[]> = {};
  for (const table of COPIED_TABLES) {
    const { rows } = await sql<Row>`select * from ${sql.table(table.name)}`.execute(db);
    // Payloads as the JSON text they stand for: compressed on SQLite, text on PostgreSQL (compact storage).
    if (table.payloads) {
      const texts =
        await sql<Row>`select ${sql.join([...table.key, ...table.payloads].map((c) => (table.payloads?.includes(c) ? sql`${dialect.payloadText(sql.ref(c))} as ${sql.ref(c)}` : sql.ref(c))))} from ${sql.table(table.name)}`.execute(
          db,
        );
      const byId = new Map(texts.rows.map((r) => [String(r[table.key[0] ?? '']), r]));
      for (const row of rows) Object.assign(row, byId.get(String(row[table.key[0] ?? ''])));
    }
    tables[table.name] = rows.sort(byKey(table.key));
  }
  return tables;
}
