import { openTestDatabase } from '@tapline/testkit/daemon';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { OpenedDatabase } from './open.js';

const SOURCE = '01a1fc8d-93a2-767e-92f3-e5a71388f88b';

/** The five payload values of an exchange on `path`, as a health check or a poll repeats them. */
const exchangeOf = (path: string): string[] => [
  JSON.stringify({ accept: 'application/json', 'user-agent': 'checker/1.0', host: 'shop.example.com' }),
  JSON.stringify({ path, probe: 'liveness' }),
  JSON.stringify({ verbose: 'false', region: 'eu-west-1' }),
  JSON.stringify({ 'content-type': 'application/json', 'cache-control': 'no-store', server: 'nginx' }),
  JSON.stringify({ status: 'ok', path, checks: { database: 'ok', queue: 'ok', cache: 'ok' } }),
];

describe("the SQLite payload codec's dictionaries", () => {
  const opened: OpenedDatabase[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((o) => o.close()));
  });

  /** Stores `groups` groups of 50 exchanges of `texts` for one source; returns every stored value. */
  async function store(o: OpenedDatabase, texts: string[], groups: number) {
    const stored: { text: string; value: string | Uint8Array }[] = [];
    for (let g = 0; g < groups; g++) {
      const group = Array.from({ length: 50 }, () => texts).flat();
      await o.db.transaction().execute(async (trx) => {
        const encode = await o.dialect.payloads.encoder(trx, SOURCE, group);
        for (const text of group) stored.push({ text, value: encode(text) });
      });
    }
    return stored;
  }

  const dictionaries = async ({ db }: OpenedDatabase) =>
    (await sql<{ data: Uint8Array }>`select data from payload_dictionaries order by id`.execute(db)).rows.map((r) =>
      Buffer.from(r.data).toString('utf8'),
    );

  it('writes no new dictionary while traffic repeats texts the one in use already holds', async () => {
    const o = await openTestDatabase();
    opened.push(o);
    await sql`pragma foreign_keys = off`.execute(o.db);
    // 20,000 values of the same exchange: a dictionary smaller than the window is trained again
    // after 1,000 values, and would have been written again each time (20 rows, an 8 KiB buffer
    // each kept in the daemon's memory for good).
    const repeated = await store(o, exchangeOf('/healthz'), 80);
    expect(await dictionaries(o)).toHaveLength(1);
    for (const { text, value } of repeated.slice(-5)) expect(o.dialect.payloads.decode(value)).toBe(text);

    // Traffic that changes still gets a dictionary that holds its new texts, 1,000 values on.
    const changed = await store(o, exchangeOf('/readyz'), 8);
    const written = await dictionaries(o);
    expect(written).toHaveLength(2);
    expect(written[1]).toContain('"path":"/readyz"');
    for (const { text, value } of changed.slice(-5)) expect(o.dialect.payloads.decode(value)).toBe(text);
  });
});
