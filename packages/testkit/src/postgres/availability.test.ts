import { describe, expect, it } from 'vitest';
import { postgresForTests } from './availability.js';

const missing = () => 'no PostgreSQL server programs under /usr/lib/postgresql';
const present = () => null;

describe('whether a run tests the daemon on PostgreSQL', () => {
  it('does when the server programs are here, or TAPLINE_TEST_PG names a server', () => {
    expect(postgresForTests({}, present)).toEqual({ available: true });
    expect(postgresForTests({ TAPLINE_TEST_PG: 'postgres://u:p@db:5432/postgres' }, missing)).toEqual({
      available: true,
    });
  });

  it('does not, with the reason for the notice, on a machine without PostgreSQL', () => {
    expect(postgresForTests({}, missing)).toEqual({ available: false, reason: missing() });
  });

  it('fails the run in CI rather than test less', () => {
    expect(() => postgresForTests({ CI: 'true' }, missing)).toThrow(
      /CI must test on PostgreSQL too, and cannot: no PostgreSQL server programs/,
    );
    expect(postgresForTests({ CI: 'true' }, present)).toEqual({ available: true });
  });
});
