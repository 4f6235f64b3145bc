import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { DatabaseLocatorError, parseLocator } from './locator.js';
import { openDatabase } from './open.js';

const SECRET = 'pa55-w0rd-never-shown';

/** A loopback port where nothing listens: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 1;
}

describe('--db', () => {
  it('opens SQLite for a file and PostgreSQL for postgres:// and postgresql:// URLs', () => {
    expect(parseLocator('/var/lib/tapline/tapline.db')).toEqual({
      backend: 'sqlite',
      file: '/var/lib/tapline/tapline.db',
    });
    expect(parseLocator('postgres-notes.db')).toEqual({ backend: 'sqlite', file: 'postgres-notes.db' });
    for (const scheme of ['postgres', 'postgresql', 'POSTGRES']) {
      const locator = parseLocator(`${scheme}://tapline:${SECRET}@db.internal:6543/monitor`);
      expect(locator).toMatchObject({
        backend: 'postgres',
        description: { backend: 'postgres', location: 'db.internal:6543/monitor' },
      });
    }
    expect(parseLocator('postgres://db.internal/monitor')).toMatchObject({
      description: { location: 'db.internal:5432/monitor' },
    });
  });

  it.each([
    `postgres://tapline:${SECRET}@[db/monitor`,
    `postgres://tapline:${SECRET}@db.internal:5432`,
    `postgres://tapline:${SECRET}@db.internal:5432/`,
  ])('refuses %s in a message without the password', (value) => {
    const error = (() => {
      try {
        parseLocator(value);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(DatabaseLocatorError);
    expect((error as Error).message).toMatch(/postgres:\/\/user:password@host:5432\/database/);
    expect((error as Error).message).not.toContain(SECRET);
  });

  it.each([
    `postgress://tapline:${SECRET}@db/monitor`,
    `pg://tapline:${SECRET}@db/monitor`,
    `mysql://tapline:${SECRET}@db/monitor`,
  ])('refuses the mistyped scheme of %s instead of opening it as a file, without the password', (value) => {
    expect(() => parseLocator(value)).toThrow(DatabaseLocatorError);
    expect(() => parseLocator(value)).toThrow(
      /^--db takes a postgres:\/\/ or postgresql:\/\/ URL or a SQLite file path; this value has another scheme$/,
    );
  });

  it('says which server it could not reach, in one line, without the password', async () => {
    const port = await closedPort();
    const opened = openDatabase(`postgres://tapline:${SECRET}@127.0.0.1:${port}/monitor`);
    try {
      const error = await opened.migrate().then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(Error);
      const { message } = error as Error;
      expect(message).toBe(`PostgreSQL at 127.0.0.1:${port}/monitor: connect ECONNREFUSED 127.0.0.1:${port}`);
      expect(message).not.toContain(SECRET);
    } finally {
      await opened.close();
    }
  });
});
