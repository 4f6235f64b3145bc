import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { composeBody } from '@tapline/testkit';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBatchWorker } from '@tapline/testkit/daemon';
import { type BatchWorker, createBatchPreparer } from './prepare-pool.js';
import type { BatchTask } from './prepare.js';

const SOURCE = '01a1fc8d-93a2-767e-92f3-e5a71388f88b';
const REDACT = { enabled: true, extraKeys: [] };

function capturedLogger() {
  const lines: Array<{ level: number; msg: string }> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as { level: number; msg: string });
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), errors: () => lines.filter((l) => l.level >= 50) };
}

const task = (items: unknown[]): BatchTask => ({
  body: new TextEncoder().encode(JSON.stringify(items)),
  trafficSourceId: SOURCE,
  receivedAt: Date.now(),
});
const batch = Array.from({ length: 50 }, (_, i) =>
  composeBody(SOURCE, { pathnameUrl: `/p/${i}`, requestHeaders: { authorization: 'Bearer t' } }),
);

describe('batch preparer', () => {
  let built: BatchWorker & { remove(): void };
  let folder: string;
  beforeAll(async () => {
    built = await buildBatchWorker();
    folder = mkdtempSync(join(tmpdir(), 'tapline-broken-worker-'));
  }, 60_000);
  afterAll(() => {
    built.remove();
    rmSync(folder, { recursive: true, force: true });
  });

  it('gives the same answers in the worker thread as on the event loop', async () => {
    const here = createBatchPreparer(null, REDACT, pino({ level: 'silent' }));
    const there = createBatchPreparer(built, REDACT, pino({ level: 'silent' }));
    try {
      for (const items of [
        batch,
        [...batch.slice(0, 3), { ...batch[3], method: 'TRACE' }],
        [{ ...batch[0], startedAt: '2999-01-01T00:00:00Z' }],
        [],
      ]) {
        expect(await there.prepare(task(items))).toEqual(await here.prepare(task(items)));
      }
      expect(
        await there.prepare({ body: new TextEncoder().encode('[{'), trafficSourceId: SOURCE, receivedAt: Date.now() }),
      ).toEqual({
        ok: false,
        stage: 'body',
        error: { statusCode: 400, error: 'Malformed JSON in request body', code: 'malformed_json' },
      });
      expect(there.offloaded).toBe(5);
      expect(here.offloaded).toBe(0);
    } finally {
      await there.close();
    }
  });

  it('moves a body that owns its memory to the thread instead of copying it (issue 11)', async () => {
    const there = createBatchPreparer(built, REDACT, pino({ level: 'silent' }));
    try {
      const moved = task(batch);
      const pooled = Buffer.from(JSON.stringify(batch.slice(0, 1)));
      expect((await there.prepare(moved)).ok).toBe(true);
      // Detached: the event loop no longer holds the body's bytes while the thread parses them.
      expect(moved.body?.byteLength).toBe(0);
      // A slice of Node's shared pool stays (and so does the rest of the pool).
      expect((await there.prepare({ body: pooled, trafficSourceId: SOURCE, receivedAt: Date.now() })).ok).toBe(true);
      expect(pooled.byteLength).toBeGreaterThan(0);
    } finally {
      await there.close();
    }
  });

  it('prepares on the event loop, with one error logged, when the thread cannot start', async () => {
    const file = join(folder, 'prepare-worker.mjs');
    writeFileSync(file, "throw new Error('this thread cannot start');\n");
    const { logger, errors } = capturedLogger();
    const preparer = createBatchPreparer({ file: pathToFileURL(file), minBytes: 0 }, REDACT, logger);
    const expected = await createBatchPreparer(null, REDACT, pino({ level: 'silent' })).prepare(task(batch));
    try {
      expect(await preparer.prepare(task(batch))).toEqual(expected);
      expect(await preparer.prepare(task(batch))).toEqual(expected);
      // Time for Piscina to start (and lose) a replacement thread: that must not end the process.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(preparer.offloaded).toBe(0);
      expect(errors()).toHaveLength(1);
      expect(errors()[0]?.msg).toBe('the batch worker thread failed; preparing batches on the event loop from now on');
    } finally {
      await preparer.close();
    }
  });
});
