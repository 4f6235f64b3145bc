import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { causeOf, createOutageLog, isDatabaseUnavailable } from './unavailable.js';

const coded = (code: string, message: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(message), { code, ...extra });

describe('which database errors mean "unavailable, retry"', () => {
  it('takes a restarting, unreachable or full PostgreSQL, and node-postgres losing its connection', () => {
    const errors = [
      coded('57P01', 'terminating connection due to administrator command'),
      coded('57P03', 'the database system is shutting down'),
      coded('57P03', 'the database system is starting up'),
      coded('08006', 'connection failure'),
      coded('53300', 'sorry, too many clients already'),
      coded('53100', 'could not extend file: No space left on device'),
      coded('25006', 'cannot execute INSERT in a read-only transaction'),
      coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432', { syscall: 'connect' }),
      coded('ECONNRESET', 'read ECONNRESET'),
      coded('ENOENT', 'connect ENOENT /run/postgresql/.s.PGSQL.5432', { syscall: 'connect' }),
      new Error('Connection terminated unexpectedly'),
      new Error('Connection terminated'),
      new Error('timeout exceeded when trying to connect'),
      new Error('Client has encountered a connection error and is not queryable'),
      new AggregateError([
        coded('ECONNREFUSED', 'connect ECONNREFUSED ::1:5432'),
        coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
      ]),
    ];
    for (const error of errors) expect(isDatabaseUnavailable(error), error.message).toBe(true);
  });

  it('takes an SQLite file that cannot be opened, written or locked', () => {
    for (const code of [
      'SQLITE_CANTOPEN',
      'SQLITE_READONLY',
      'SQLITE_READONLY_DBMOVED',
      'SQLITE_IOERR',
      'SQLITE_IOERR_WRITE',
      'SQLITE_FULL',
      'SQLITE_BUSY',
      'SQLITE_PERM',
    ]) {
      expect(isDatabaseUnavailable(coded(code, 'x')), code).toBe(true);
    }
  });

  it('leaves out what retrying cannot fix: wrong SQL, broken constraints, bugs', () => {
    const errors = [
      coded('42601', 'syntax error at or near "selec"'),
      coded('23505', 'duplicate key value violates unique constraint'),
      coded('SQLITE_CONSTRAINT_UNIQUE', 'UNIQUE constraint failed'),
      coded('SQLITE_ERROR', 'no such table: x'),
      coded('ENOENT', "no such file or directory, open 'x'", { syscall: 'open' }),
      new TypeError("Cannot read properties of undefined (reading 'id')"),
      new Error('compose stored no record'),
    ];
    for (const error of errors) expect(isDatabaseUnavailable(error), error.message).toBe(false);
    for (const value of [undefined, null, 'ECONNREFUSED', 42]) expect(isDatabaseUnavailable(value)).toBe(false);
  });

  it('names the cause in one line with its code', () => {
    expect(causeOf(coded('57P01', 'terminating connection due to administrator command'))).toBe(
      '57P01 terminating connection due to administrator command',
    );
    expect(causeOf(coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'))).toBe(
      'connect ECONNREFUSED 127.0.0.1:5432',
    );
    expect(causeOf(new AggregateError([coded('ECONNREFUSED', 'connect ECONNREFUSED ::1:5432')]))).toBe(
      'connect ECONNREFUSED ::1:5432',
    );
  });
});

describe('the outage log', () => {
  function capture() {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write: (chunk: Buffer, _e, done) => (lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>), done()),
    });
    return { lines, logger: pino({ level: 'warn' }, sink) };
  }

  it('says each cause once, then at most once per interval with the failures in between, never a stack', async () => {
    const { lines, logger } = capture();
    let now = 0;
    const log = createOutageLog(logger, () => now, 10_000);
    for (let i = 0; i < 50; i++)
      log.report(coded('57P01', 'terminating connection due to administrator command'), 'POST /x');
    for (let i = 0; i < 50; i++)
      log.report(coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'), 'the live stream');
    now = 9_999;
    log.report(coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'), 'POST /x');
    now = 10_000;
    log.report(coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'), 'POST /x');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.map(({ event, cause, task, alsoFailed }) => ({ event, cause, task, alsoFailed }))).toEqual([
      {
        event: 'database_unavailable',
        cause: '57P01 terminating connection due to administrator command',
        task: 'POST /x',
        alsoFailed: undefined,
      },
      {
        event: 'database_unavailable',
        cause: 'connect ECONNREFUSED 127.0.0.1:5432',
        task: 'the live stream',
        alsoFailed: undefined,
      },
      { event: 'database_unavailable', cause: 'connect ECONNREFUSED 127.0.0.1:5432', task: 'POST /x', alsoFailed: 50 },
    ]);
    expect(JSON.stringify(lines)).not.toContain('stack');
  });
});
