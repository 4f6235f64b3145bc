import {
  CamelCasePlugin,
  type CompiledQuery,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
} from 'kysely';
import { describe, expect, it } from 'vitest';
import { postgresDialect } from '../db/dialect.js';
import { Joined } from '../db/joined.js';
import { plainPayloads } from '../db/payload-codec.js';
import type { CountRow } from '../http-traffic/table.js';
import { countRowsOf, createTrafficWriter } from '../http-traffic/writer.js';
import { rulesOf } from './rules-repo.js';
import { ShapedStatements, type StandIn } from '../db/shaped.js';
import type { DB } from '../db/schema.js';
import { type BucketTotals, emptyTotals, type Span } from './rollup.js';
import { LEVELS, shapedLevel } from './writer.js';

/** A Kysely for PostgreSQL that runs nothing and keeps every statement it was given. */
function recording() {
  const sent: CompiledQuery[] = [];
  /** A statement whose text holds this fails once, with PostgreSQL's 42883. */
  const failing = { text: '' };
  const db = new Kysely<DB>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () =>
        Object.assign(new DummyDriver(), {
          acquireConnection: () =>
            Promise.resolve({
              executeQuery: (query: CompiledQuery) => {
                sent.push(query);
                if (failing.text === '' || !query.sql.includes(failing.text)) return Promise.resolve({ rows: [] });
                failing.text = '';
                return Promise.reject(
                  Object.assign(new Error('operator does not exist: uuid = text'), { code: '42883' }),
                );
              },
              streamQuery: () => {
                throw new Error('not used');
              },
            }),
        }),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
  return { db, sent, failing };
}

const SPANS: Span[] = [1, 60, 1440];
/** `count` totals of one level, with values that differ between calls of one seed. */
function totals(count: number, seed: number, span: Span): BucketTotals[] {
  return Array.from({ length: count }, (_, i) => {
    const t = {
      ...emptyTotals(),
      sourceId: `source-${seed % 3}`,
      span,
      start: new Date(Date.UTC(2026, 10, 28, seed % 24, i)).toISOString(),
      routeId: `route-${seed}-${i}`,
      method: (['GET', 'POST', 'DELETE'] as const)[(seed + i) % 3] ?? 'GET',
      domainId: `domain-${i % 2}`,
      statusClass: 1 + ((seed + i) % 5),
    };
    t.count = seed * 7 + i;
    t.latencyMax = seed + i / 3;
    t.latencySum = seed * 11.5 + i;
    t.requestBytes = 1600 + seed;
    t.responseBytes = i * 1000 + seed;
    for (let k = 0; k <= i + seed; k++) t.sketch.accept(1 + k * 3.7);
    return t;
  });
}

describe('statistics statements compiled once a shape (decisions §20.29)', () => {
  it('sends the very text and parameters Kysely compiles for each group, a shape reused or new', async () => {
    const { db, sent } = recording();
    const shaped = new ShapedStatements();
    for (const entry of LEVELS) {
      const ways = shapedLevel(shaped, entry);
      // Three sizes, each seen with several groups' values, so that a template is made and then reused.
      for (const count of [1, 3, 1, 7, 3]) {
        for (const seed of [1, 2, 5]) {
          const part = totals(count, seed + count, entry.name === 'route_stats' ? 1 : SPANS[1 + (seed % 2)]!);
          expect(ways.insertEmpty(db, part).compile()).toMatchObject(pick(entry.level.insertEmpty(db, part).compile()));
          expect(ways.write(db, part).compile()).toMatchObject(pick(entry.level.write(db, part, 'replace').compile()));
          sent.length = 0;
          await entry.level.locked(db, postgresDialect, part, true);
          await entry.level.locked(db, postgresDialect, part, true, shaped);
          expect(sent).toHaveLength(2);
          expect(pick(sent[1]!)).toEqual(pick(sent[0]!));
        }
      }
    }
  });

  it("sends the count upsert and the rules' read as Kysely compiles them", async () => {
    const { db, sent, failing } = recording();
    // The rules' read is kept prepared (decisions §20.34): one text, the ids one array, the type spelled.
    const keptText: unknown = expect.stringContaining('where s.id = any($1::text[])');
    const kept = { sql: keptText, parameters: [['a', 'b'], KEPT_MARKER] };
    await rulesOf(db, { dialect: postgresDialect }, ['a', 'b'], true);
    expect(sent.map(pick)).toEqual([kept]);
    expect(sent[0]?.sql).toMatch(/for share of s$/);
    sent.length = 0;
    await rulesOf(db, { dialect: postgresDialect }, ['a', 'b'], false);
    expect(sent[0]?.sql).not.toMatch(/for share/);
    // Until it fails on a type (a column made uuid): from then on it is compiled once a shape, below.
    // Read on the pool (a route's suggestions), where nothing retries, the failed read is answered
    // by the untyped text at once; in a transaction the failure is the transaction's (KeptRead's
    // own tests, db/pg-joined.postgres.test.ts).
    failing.text = 'any($1::text[])';
    sent.length = 0;
    await expect(rulesOf(db, { dialect: postgresDialect }, ['a', 'b'], false)).resolves.toEqual(
      new Map([
        ['a', []],
        ['b', []],
      ]),
    );
    expect(sent.map((query) => query.sql.includes('any($1::text[])'))).toEqual([true, false]);
    const writer = createTrafficWriter(plainPayloads, { joined: true });
    const upsert = (part: readonly CountRow[]) =>
      db
        .insertInto('traffic_counts')
        .values(part)
        .onConflict((oc) =>
          oc
            .columns(['traffic_source_id', 'pathname_id', 'method', 'status'])
            .doUpdateSet((eb) => ({ count: eb('traffic_counts.count', '+', eb.ref('excluded.count')) })),
        )
        .compile();
    const rules = (ids: readonly string[], lock: boolean) => {
      const query = db
        .selectFrom('traffic_sources as s')
        .leftJoin('route_rules as r', 'r.traffic_source_id', 's.id')
        .select(['s.id as traffic_source_id', 'r.template'])
        .where('s.id', 'in', [...ids])
        .orderBy('s.id')
        .orderBy('r.template');
      return (lock ? query.forShare('s') : query).compile();
    };
    for (const [count, seed] of [
      [1, 1],
      [4, 2],
      [1, 3],
      [4, 4],
      [9, 5],
    ] as const) {
      const traffic = Array.from({ length: count * 2 }, (_, i) => ({
        id: `id-${seed}-${i}`,
        traffic_source_id: `source-${i % 2}`,
        domain_id: `domain-${seed}`,
        pathname_id: `path-${i % count}`,
        status: 200 + seed,
        method: (['GET', 'POST'] as const)[i % 2] ?? 'GET',
        level: 'INFO' as const,
        protocol: 'HTTPS' as const,
        elapsed_time: i,
        created_at: new Date(Date.UTC(2026, 10, 28, 10, seed, i)).toISOString(),
        request_headers: '{}',
        query_params: '{}',
        response_headers: '{}',
        stream_seq: 0,
      }));
      sent.length = 0;
      await writer.insertExchanges(db, traffic);
      expect(sent.map(pick)).toEqual([pick(upsert(countRowsOf(traffic)))].map(marked));
      for (const lock of [true, false]) {
        const ids = Array.from({ length: count }, (_, i) => `source-${seed}-${i}`);
        sent.length = 0;
        await rulesOf(db, { dialect: postgresDialect }, ids, lock);
        expect(sent.map(pick)).toEqual([marked(pick(rules(ids, lock)))]);
      }
    }
  });

  it('keeps null and undefined in the text, as Kysely writes them, apart from other values', () => {
    const { db } = recording();
    const shaped = new ShapedStatements();
    type Probe = readonly [string | null, string | null | undefined, string | null];
    const build = (v: Probe) => (at: StandIn) =>
      db
        .selectFrom('http_traffic')
        .select('id')
        .where((eb) => eb.and({ traffic_user_id: at(0, v[0]), route_id: at(1, v[1]), route: at(2, v[2]) }));
    const probes: Probe[] = [
      ['a', 'b', 'GET'],
      ['c', null, 'POST'],
      ['d', 'e', 'PUT'],
      [null, null, null],
      ['f', undefined, 'x'],
      ['g', null, 'HEAD'],
      ['h', undefined, null],
    ];
    for (const probe of probes) {
      const got = shaped.statement(db, 'probe', probe, build(probe)).compile();
      expect(pick(got)).toEqual(pick(build(probe)((_, value) => value).compile()));
    }
  });

  it('keeps a bounded number of shapes a statement, the least recently used going first', () => {
    const { db } = recording();
    const shaped = new ShapedStatements(2);
    let builds = 0;
    const ids = (count: number) => Array.from({ length: count }, (_, i) => `id-${i}`);
    const read = (name: string, values: readonly string[]) =>
      shaped.statement(db, name, values, (at) => {
        builds += 1;
        return db
          .selectFrom('http_traffic')
          .select('id')
          .where(
            'id',
            'in',
            values.map((v, i) => at(i, v)),
          );
      });
    read('a', ids(1));
    read('a', ids(2));
    read('b', ids(1)); // another statement keeps shapes of its own
    read('a', ids(1)); // a reuse: shape 2 is now the least recently used
    expect(builds).toBe(3);
    read('a', ids(3)); // past the bound: shape 2 goes
    read('a', ids(1));
    read('b', ids(1));
    expect(builds).toBe(4);
    read('a', ids(2));
    expect(builds).toBe(5);
    // Past 1,024 values a statement is compiled each time and kept nowhere.
    const many = ids(1_100);
    const got = read('c', many).compile();
    read('c', many);
    expect(builds).toBe(7);
    expect(got.parameters).toEqual(many);
  });

  it('refuses an executor with plugins, and a build that compiles a value twice', () => {
    const { db } = recording();
    const shaped = new ShapedStatements();
    const values = ['x', 'y'] as const;
    const withPlugin = db.withPlugin(new CamelCasePlugin());
    expect(() =>
      shaped.statement(withPlugin, 'plugged', values, (at) =>
        withPlugin
          .selectFrom('http_traffic')
          .select('id')
          .where('id', 'in', [at(0, values[0]), at(1, values[1])]),
      ),
    ).toThrow('plugged: compiled once a shape only without plugins');
    expect(() =>
      shaped.statement(db, 'twice', values, (at) => {
        const first = at(0, values[0]);
        return db
          .selectFrom('http_traffic')
          .select('id')
          .where('id', 'in', [first, first, at(1, values[1])]);
      }),
    ).toThrow('twice: value 0 is compiled twice');
  });
});

/** What a joined statement is sent with: its parameters and the marker db/joined.ts adds. */
const marked = ({ sql, parameters }: { sql: string; parameters: unknown[] }) => ({
  sql,
  parameters: [...parameters, expect.any(Joined)],
});

/** The marker of a statement kept prepared and joined (db/joined.ts, KEPT_TAKES). */
const KEPT_MARKER: unknown = expect.objectContaining({ waits: false, kept: true });

const pick = ({ sql, parameters }: CompiledQuery) => ({ sql, parameters: [...parameters] });
