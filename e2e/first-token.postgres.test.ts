import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { type FreshDatabase, freshDatabase } from '@tapline/testkit/daemon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminOn, type Member, startMember } from './support/cluster.js';

/**
 * The first start's token on a shared PostgreSQL database (issue 24, problem 12): of daemons
 * started together on an empty database exactly one writes it, to its own home, and
 * `taplined token list` (run from anywhere) says which token that is and where it was written.
 */
describe('the first-start token on an empty PostgreSQL database (built taplined)', () => {
  let database: FreshDatabase;
  let members: Member[];

  beforeAll(async () => {
    database = await freshDatabase();
    members = await Promise.all([startMember(database.locator), startMember(database.locator)]);
  }, 90_000);
  afterAll(async () => {
    await Promise.all(members.map((m) => m.stop()));
    await database?.drop();
  });

  it('is written by one daemon only, into its home, and named with that place by `token list`', async () => {
    const writers = members.filter((m) => existsSync(join(m.home, 'token')));
    expect(writers).toHaveLength(1);
    const listed = (await adminOn(database.locator, ['token', 'list'])).split('\n');
    expect(listed).toHaveLength(2);
    expect(listed[1]).toMatch(/local@localhost\s+full\s+-\s+\S+\s+never\s+-\s+first-start token/);
    expect(listed[1]).toContain(`first-start token (written to ${hostname()}:${join(writers[0]!.home, 'token')})`);
  });
});
