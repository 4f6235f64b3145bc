import { describe, expect, it } from 'vitest';
import type { DropEvent } from './recorder-types.js';
import { batchBody, createRecordQueue, MAX_BATCH_BYTES, type QueuedRecord } from './record-queue.js';

const record = (json: string, seen?: (string | null)[]): QueuedRecord => ({
  json,
  onStored: seen ? (id) => seen.push(id) : undefined,
});

describe('the recorder queue', () => {
  it('bounds records by count and by bytes, counting what it drops and why', () => {
    const events: DropEvent[] = [];
    const queue = createRecordQueue({ maxRecords: 2, maxBytes: 10, onDrop: (e) => events.push(e) });
    const seen: (string | null)[] = [];
    expect(queue.offer(record('{"a":1}'), false)).toBe(true);
    // 7 + 7 bytes is past 10: dropped as queue-full, told null.
    expect(queue.offer(record('{"b":2}', seen), false)).toBe(false);
    expect(queue.offer(record('{}'), false)).toBe(true);
    expect(queue.offer(record('{}'), false)).toBe(false);
    expect(queue.offer(record('{}', seen), true)).toBe(false);
    expect(seen).toEqual([null, null]);
    expect(queue.counts()).toMatchObject({
      queued: 2,
      queuedBytes: 9,
      dropped: 3,
      droppedBy: { queueFull: 2, closed: 1 },
      rejected: 0,
    });
    expect(events.map((e) => [e.reason, e.count, e.total])).toEqual([
      ['queue-full', 1, 1],
      ['queue-full', 1, 2],
      ['closed', 1, 3],
    ]);
  });

  it('takes from the head and puts back in order, its bytes following', () => {
    const queue = createRecordQueue({ maxRecords: 10, maxBytes: 1_000 });
    for (const json of ['{"n":1}', '{"n":2}', '{"n":3}']) queue.offer(record(json), false);
    const taken = queue.take(2);
    expect(queue.counts()).toMatchObject({ queued: 1, queuedBytes: 7 });
    queue.putBack(taken.slice(1));
    expect(queue.peek(5).map((r) => r.json)).toEqual(['{"n":2}', '{"n":3}']);
    expect(queue.counts()).toMatchObject({ queued: 2, queuedBytes: 14 });
  });

  it('counts rejections by the answer that gave them', () => {
    const queue = createRecordQueue({ maxRecords: 10, maxBytes: 1_000 });
    queue.drop('rejected', [record('{}'), record('{}')], new Error('401'), 'unauthorized');
    queue.drop('rejected', [record('{}')]);
    expect(queue.counts()).toMatchObject({ rejected: 3, rejectedBy: { unauthorized: 2, invalid: 1 }, dropped: 0 });
  });

  it('fills a batch up to its cap, and never past the endpoint’s size, but always with one record', () => {
    const queue = createRecordQueue({ maxRecords: 10, maxBytes: 64 * 1024 * 1024 });
    const half = `{"x":"${'a'.repeat(MAX_BATCH_BYTES / 2)}"}`;
    for (let i = 0; i < 3; i++) queue.offer(record(half), false);
    expect(queue.batchLength(1_000)).toBe(1);
    expect(queue.batchLength(0)).toBe(0);
    queue.take(3);
    const huge = `{"x":"${'a'.repeat(MAX_BATCH_BYTES)}"}`;
    queue.offer(record(huge), false);
    queue.offer(record('{}'), false);
    // A record larger than a batch still goes alone: the daemon answers for it (413).
    expect(queue.batchLength(1_000)).toBe(1);
    queue.take(1);
    for (let i = 0; i < 4; i++) queue.offer(record('{}'), false);
    expect(queue.batchLength(3)).toBe(3);
  });

  it('puts the source first in each record of the batch body', () => {
    expect(JSON.parse(batchBody('src-1', [record('{}'), record('{"method":"GET"}')]))).toEqual([
      { trafficSourceId: 'src-1' },
      { trafficSourceId: 'src-1', method: 'GET' },
    ]);
  });
});
