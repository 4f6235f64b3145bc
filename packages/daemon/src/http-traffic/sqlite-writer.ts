import type { DirectStatements, SqlDialect } from '../db/dialect.js';
import { quoted, slots } from '../db/sql-text.js';
import { countRowsOf, encodeExchanges, TRAFFIC_COLUMNS, type TrafficWriter } from './writer.js';

const COUNT_COLUMNS = ['traffic_source_id', 'pathname_id', 'domain_id', 'method', 'status', 'level', 'count'] as const;

/** The same statements Kysely compiled for these writes (writer.ts), one row each. */
const SQL = {
  traffic: `insert into "http_traffic" (${quoted(TRAFFIC_COLUMNS)}) values (${slots(TRAFFIC_COLUMNS.length)})`,
  streamNumbers:
    'insert into "stream_sequence" ("name", "value") values (?, ?) on conflict ("name") do update set "value" = stream_sequence.value + ? returning "value"',
  count:
    `insert into "traffic_counts" (${quoted(COUNT_COLUMNS)}) values (${slots(COUNT_COLUMNS.length)}) ` +
    'on conflict ("traffic_source_id", "pathname_id", "method", "status") do update set "count" = "traffic_counts"."count" + "excluded"."count"',
};

/**
 * The traffic writer of an SQLite database: the same rows, in the same order, as the writer
 * through Kysely, bound one row at a time to statements prepared once on the connection. Through
 * Kysely, a batch of 1,000 was turned into query nodes, run through the stored-values plugin and
 * bound as multi-row statements of 10,000 parameters; building those was a sizeable share of the
 * main thread's time and garbage (docs/performance.md, "Batches on prepared statements"). Ids are
 * stored by the dialect's own `stored.encode`, as the plugin stores them. It writes inside the
 * Kysely transaction it is given: SQLite has one connection, which that transaction holds.
 */
export function createSqliteTrafficWriter(
  dialect: Pick<SqlDialect, 'payloads' | 'stored'>,
  statements: DirectStatements,
): TrafficWriter {
  const { stored, payloads } = dialect;
  const inTransaction = (): DirectStatements => {
    // Outside a transaction each statement would commit by itself: the group's all-or-none would be lost.
    if (!statements.inTransaction) throw new Error('the SQLite traffic writer runs inside a transaction only');
    return statements;
  };
  return {
    async insertExchanges(trx, traffic) {
      await encodeExchanges(trx, payloads, traffic);
      const count = inTransaction().prepare(SQL.count);
      const values: unknown[] = new Array(COUNT_COLUMNS.length);
      for (const row of countRowsOf(traffic)) {
        COUNT_COLUMNS.forEach((column, i) => (values[i] = stored.encode(column, row[column])));
        count.run(values);
      }
    },
    // eslint-disable-next-line @typescript-eslint/require-await -- the writer's interface is async (PostgreSQL's is)
    async insertTraffic(_trx, traffic) {
      const direct = inTransaction();
      const numbered: unknown = direct.prepare(SQL.streamNumbers).get('traffic', traffic.length, traffic.length);
      const last = numbered && typeof numbered === 'object' && 'value' in numbered ? Number(numbered.value) : NaN;
      if (!Number.isSafeInteger(last)) throw new Error('the stream counter gave no number');
      const first = last - traffic.length + 1;
      const insert = direct.prepare(SQL.traffic);
      const values: unknown[] = new Array(TRAFFIC_COLUMNS.length);
      traffic.forEach((row, n) => {
        row.stream_seq = first + n;
        TRAFFIC_COLUMNS.forEach((column, i) => (values[i] = stored.encode(column, row[column] ?? null)));
        insert.run(values);
      });
      return first;
    },
  };
}
