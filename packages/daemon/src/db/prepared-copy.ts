import { CompiledQuery, type Insertable } from 'kysely';
import { type Columns, type InsertExecutor, insertTemplate, type Template } from './prepared.js';
import type { DB } from './schema.js';

/**
 * A multi-row INSERT's rows stored by `COPY … FROM STDIN` in its text format instead (see CopyData), each value
 * in the stored form a one-row INSERT's encoders give it and as the text node-postgres would send
 * for it: one statement with no parameters to bind and plan, where the INSERT of a batch of 1,000
 * entries binds 22,000.
 */
export function preparedCopy<T extends keyof DB>(table: T, columns: Columns<T>) {
  let encoders: Template['encoders'] | undefined;
  const sql = `copy "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) from stdin`;
  return async (db: InsertExecutor, rows: ReadonlyArray<Insertable<DB[T]>>): Promise<void> => {
    // pg-copy.js holds node-postgres's encoder and pg-copy-streams: loaded by the first COPY, never on SQLite.
    const { CopyData, copyPieces } = await import('./pg-copy.js');
    const encode = (encoders ??= insertTemplate(db, table, columns, 1).encoders);
    // Made only as the COPY reads them (see CopyData).
    const pieces = copyPieces(rows, columns.length, (row, i) => {
      const name = columns[i];
      return name === undefined ? null : (encode[i]?.(row[name] ?? null) ?? null);
    });
    await db.executeQuery(CompiledQuery.raw(sql, [new CopyData(pieces)]));
  };
}
