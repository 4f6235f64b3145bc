import { execa, type ResultPromise } from 'execa';
import { type FreshDatabase, freshDatabase } from '@tapline/testkit/daemon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, TAPLINE, tempHome } from './support/binaries.js';
import { adminOn, type Member, startMember } from './support/cluster.js';
import { compose, createSource } from './support/compose.js';
import { until } from '@tapline/testkit';

interface Tail {
  readonly child: ResultPromise;
  /** The entries printed so far, one per `--ndjson` line. */
  entries(): { id: string; pathname: string }[];
}

/**
 * `tapline traffic tail` (built) on one daemon while two daemons on one PostgreSQL database take
 * composes at once: their ids interleave in commit order (docs/decisions.md §9.7), and the tail
 * must print every entry exactly once (issue 24, problem 4).
 */
describe('tapline traffic tail on one of two daemons sharing PostgreSQL (built binaries)', () => {
  let database: FreshDatabase;
  let a: Member;
  let b: Member;
  let token: string;
  let sourceId: string;
  const home = tempHome('tapline-tail-');
  const tails: ResultPromise[] = [];

  beforeAll(async () => {
    database = await freshDatabase();
    [a, b] = await Promise.all([startMember(database.locator), startMember(database.locator)]);
    await adminOn(database.locator, ['user', 'add', 'ops@example.com']);
    token = await adminOn(database.locator, ['token', 'create', 'ops@example.com']);
    sourceId = await createSource(a.url, token, 'shop');
  }, 90_000);
  afterAll(async () => {
    for (const child of tails) child.kill('SIGKILL');
    await Promise.all([a?.stop(), b?.stop()]);
    await database?.drop();
    home.remove();
  });

  function startTail(on: Member, lines: number): Tail {
    let out = '';
    const child = execa(
      'node',
      [TAPLINE, '--home', home.path, '--url', on.url, 'traffic', 'tail', 'shop', '--ndjson', '--lines', String(lines)],
      {
        env: cleanEnv({ TAPLINE_TOKEN: token }),
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
        buffer: false,
      },
    );
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    tails.push(child);
    const entries = () =>
      out
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { id: string; pathname: string });
    return { child, entries };
  }

  /** `writers` loops per daemon, `each` composes per loop, all at once; the acknowledged ids. */
  async function composeOnBoth(
    writers: number,
    each: number,
    onAcknowledged: (id: string, count: number) => void,
  ): Promise<string[]> {
    const acknowledged: string[] = [];
    const loops = [a, b].flatMap((member, m) =>
      Array.from({ length: writers }, async (_, w) => {
        for (let i = 0; i < each; i++) {
          const { id } = await compose(member.url, token, sourceId, { pathnameUrl: `/d${m}/w${w}/${i}` });
          acknowledged.push(id);
          onAcknowledged(id, acknowledged.length);
        }
      }),
    );
    await Promise.all(loops);
    return acknowledged;
  }

  const counts = (ids: readonly string[]) => {
    const n = new Map<string, number>();
    for (const id of ids) n.set(id, (n.get(id) ?? 0) + 1);
    return n;
  };

  // Two daemons, two tails and 480 composes: slow on a machine shared with other runs.
  it('prints every entry composed on either daemon exactly once, and what the page showed only once', async () => {
    await compose(a.url, token, sourceId, { pathnameUrl: '/start' });
    const early = startTail(b, 1);
    await until(() => early.entries().some((e) => e.pathname === '/start'), 'the tail to print its page', 30_000);

    // A second tail starts in the middle of the load: its page and its stream overlap.
    let late: Tail | undefined;
    let sinceLate: string[] = [];
    const acknowledged = await composeOnBoth(4, 60, (id, count) => {
      if (late && late.entries().length > 0) sinceLate.push(id);
      else if (!late && count === 120) late = startTail(b, 40);
    });
    // Committed after everything above was acknowledged, so it is the last of the stream.
    const end = await compose(b.url, token, sourceId, { pathnameUrl: '/end' });
    for (const tail of [early, late])
      await until(
        () => tail?.entries().some((e) => e.id === end.id) ?? false,
        'the tail to print the last entry',
        30_000,
      );

    const printed = early
      .entries()
      .filter((e) => e.pathname !== '/start' && e.id !== end.id)
      .map((e) => e.id);
    const missing = acknowledged.filter((id) => !printed.includes(id));
    const repeated = [...counts(printed)].filter(([, n]) => n > 1).map(([id]) => id);
    expect({ missing: missing.length, repeated: repeated.length, printed: printed.length }).toEqual({
      missing: 0,
      repeated: 0,
      printed: acknowledged.length,
    });

    const lateIds = late?.entries().map((e) => e.id) ?? [];
    expect([...counts(lateIds)].filter(([, n]) => n > 1)).toEqual([]);
    // Composed after its first line was printed: after its page was read, so all in its stream.
    sinceLate = sinceLate.filter((id) => !lateIds.includes(id));
    expect(sinceLate).toEqual([]);
  }, 180_000);
});
