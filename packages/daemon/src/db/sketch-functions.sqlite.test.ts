import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { encodeSketch, newSketch, SKETCH_MERGE_FUNCTION, SKETCH_UNION_AGGREGATE } from '../route-stats/sketch.js';
import { openSqlite } from './sqlite.js';
import type { OpenedDatabase } from './types.js';

// The sketch functions SQLite's statements call (db/sqlite.ts): what they return must be the
// stored form of one sketch of everything given, as the library would merge it.
let opened: Omit<OpenedDatabase, 'description'>;
beforeAll(() => {
  opened = openSqlite(':memory:');
});
afterAll(() => opened.close());

const latency = fc.oneof(fc.constant(0), fc.double({ min: 0.001, max: 600_000, noNaN: true }));

it(`${SKETCH_UNION_AGGREGATE} of stored sketches, grouped, is the stored form of one sketch of each group's latencies`, async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.record({ group: fc.integer({ min: 0, max: 2 }), latencies: fc.array(latency, { maxLength: 20 }) }), {
        maxLength: 12,
      }),
      async (rows) => {
        const db = opened.db.withoutPlugins();
        const values = rows.map(({ group, latencies }) => {
          const sketch = newSketch();
          for (const v of latencies) sketch.accept(v);
          return sql`select ${group} as g, ${latencies.length === 0 ? null : encodeSketch(sketch)} as s`;
        });
        if (values.length === 0) return;
        const union = await sql<{ g: number; s: Uint8Array }>`select g, ${sql.raw(SKETCH_UNION_AGGREGATE)}(s) as s
          from (${sql.join(values, sql` union all `)}) group by g order by g`.execute(db);
        const groups = [...new Set(rows.map((r) => r.group))].sort();
        expect(union.rows.map((r) => r.g)).toEqual(groups);
        for (const row of union.rows) {
          const all = newSketch();
          for (const r of rows) if (r.group === row.g) for (const v of r.latencies) all.accept(v);
          expect(Buffer.from(row.s)).toEqual(Buffer.from(encodeSketch(all)));
        }
      },
    ),
  );
});

it(`${SKETCH_MERGE_FUNCTION} of two stored sketches is the stored form of one sketch of both`, async () => {
  const [a, b, both] = [newSketch(), newSketch(), newSketch()];
  for (const v of [0, 2, 40]) [a, both].forEach((s) => s.accept(v));
  for (const v of [1, 40, 9_000]) [b, both].forEach((s) => s.accept(v));
  const merged = await sql<{
    s: Uint8Array;
  }>`select ${sql.raw(SKETCH_MERGE_FUNCTION)}(${encodeSketch(a)}, ${encodeSketch(b)}) as s`.execute(
    opened.db.withoutPlugins(),
  );
  expect(Buffer.from(merged.rows[0]?.s ?? [])).toEqual(Buffer.from(encodeSketch(both)));
});
