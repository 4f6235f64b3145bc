// The list floor's SQL: the statements the daemon's own repository runs for a list query, taken
// from the repository itself (listTraffic, through a Kysely plugin that compiles each query as it
// passes), so the floor can run exactly them in better-sqlite3 with nothing around them. Bundled
// by bench/ts.mjs; the list scenario runs the statements.
import { TrafficListQuery } from '../packages/shared/src/index.js';
import { openDatabase } from '../packages/daemon/src/db/open.js';
import { listTraffic } from '../packages/daemon/src/http-traffic/repo.js';

export interface Statement {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

/** Every statement `GET /http-traffic/:source?<search>` runs on `dbFile`, in order. */
export async function listStatements(dbFile: string, sourceId: string, search: string): Promise<Statement[]> {
  const opened = openDatabase(dbFile);
  const statements: Statement[] = [];
  const executor = opened.db.getExecutor();
  const db = opened.db.withPlugin({
    transformQuery(args) {
      const { sql, parameters } = executor.compileQuery(args.node, args.queryId);
      statements.push({ sql, parameters });
      return args.node;
    },
    transformResult: (args) => Promise.resolve(args.result),
  });
  try {
    const { page, limit, ...filters } = TrafficListQuery.parse(Object.fromEntries(new URLSearchParams(search)));
    await listTraffic({ db, dialect: opened.dialect }, sourceId, filters, { page, limit });
    return statements;
  } finally {
    await opened.close();
  }
}
