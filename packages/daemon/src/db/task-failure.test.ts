import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { logTaskFailure } from './task-failure.js';
import { createOutageLog } from './unavailable.js';

const coded = (code: string, message: string) => Object.assign(new Error(message), { code });

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write: (chunk: Buffer, _e, done) => (lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>), done()),
  });
  const logger = pino({ level: 'info' }, sink);
  return { lines, logs: { logger, outages: createOutageLog(logger, () => 0, 10_000) } };
}

describe("a background task's failed round", () => {
  it('says a lost race (a deadlock, a serialization failure) in one warn line, without a stack', async () => {
    const { lines, logs } = capture();
    logTaskFailure(logs, coded('40P01', 'deadlock detected'), 'pruning');
    logTaskFailure(logs, coded('40001', 'could not serialize access'), 'alert evaluation');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.map(({ level, event, code, task, msg }) => ({ level, event, code, task, msg }))).toEqual([
      {
        level: 40,
        event: 'transaction_conflict',
        code: '40P01',
        task: 'pruning',
        msg: 'pruning lost a race with another transaction; it tries again',
      },
      {
        level: 40,
        event: 'transaction_conflict',
        code: '40001',
        task: 'alert evaluation',
        msg: 'alert evaluation lost a race with another transaction; it tries again',
      },
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/stack|\bat /);
  });

  it('says an outage on the outage line, and anything else as the error it is (a bug)', async () => {
    const { lines, logs } = capture();
    logTaskFailure(logs, coded('57P01', 'terminating connection due to administrator command'), 'the live stream');
    logTaskFailure(logs, new TypeError('x is not a function'), 'pruning');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.map(({ level, event, task }) => ({ level, event, task }))).toEqual([
      { level: 40, event: 'database_unavailable', task: 'the live stream' },
      { level: 50, event: undefined, task: 'pruning' },
    ]);
    expect(lines[1]?.err).toMatchObject({ type: 'TypeError', message: 'x is not a function' });
  });
});
