import { contract, createSseParser, type SseEvent, type TaplineClient } from '@tapline/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSource, composeBody, type Harness, startHarness } from '@tapline/testkit/daemon';
import { createStreamHub, type StreamHub } from './stream-hub.js';
import { DEFAULT_STREAM_OPTIONS, StreamSession, type StreamSink } from './stream-session.js';
import { until } from '@tapline/testkit';

/** A sink that records events, and blocks writes (a full socket) while `hold` is set. */
function recordingSink() {
  const events: SseEvent[] = [];
  let heartbeats = 0;
  const parser = createSseParser((e) => events.push(e));
  const held: (() => void)[] = [];
  const sink = {
    hold: false,
    ended: false,
    write(text: string) {
      heartbeats += text.split(': heartbeat\n').length - 1;
      parser.feed(text);
      return sink.hold ? new Promise<void>((resolve) => held.push(resolve)) : Promise.resolve();
    },
    end() {
      sink.ended = true;
      // As a response does when its socket closes: nothing waits on it any more.
      sink.release();
    },
    /** Lets the oldest held write finish. */
    step() {
      held.shift()?.();
    },
    release() {
      sink.hold = false;
      held.splice(0).forEach((resolve) => resolve());
    },
    events,
    heartbeats: () => heartbeats,
    ids: () => events.filter((e) => e.event === 'message').map((e) => e.id),
  };
  return sink satisfies StreamSink;
}

describe('StreamSession', () => {
  let h: Harness;
  let hub: StreamHub;
  let client: TaplineClient;
  let sourceId: string;
  const batch = async (n: number) =>
    (
      await client.call(contract.composeBatch, {
        params: { trafficSourceId: sourceId },
        body: Array.from({ length: n }, () => composeBody(sourceId)),
      })
    ).ids;

  beforeEach(async () => {
    h = await startHarness();
    hub = createStreamHub(h.deps);
    client = (await h.user()).client;
    sourceId = (await createSource(client)).id;
  });
  afterEach(() => h.close());

  it('writes heartbeat comments on its interval', async () => {
    const sink = recordingSink();
    const session = new StreamSession(
      h.deps,
      hub,
      sourceId,
      {},
      sink,
      { ...DEFAULT_STREAM_OPTIONS, heartbeatMs: 10, maxQueue: 10, replayPage: 10 },
      undefined,
    );
    const running = session.run();
    await until(() => sink.heartbeats() >= 3, 'three heartbeats');
    session.close();
    await running;
    expect(sink.events[0]).toEqual({ event: 'ready', data: '{"cursor":null}', id: undefined });
    expect(hub.listeners).toBe(0);
  });

  it('tells a live client that falls behind so, names its cursor, and hangs up', async () => {
    const sink = recordingSink();
    const session = new StreamSession(
      h.deps,
      hub,
      sourceId,
      {},
      sink,
      { ...DEFAULT_STREAM_OPTIONS, heartbeatMs: 60_000, maxQueue: 5, replayPage: 10 },
      undefined,
    );
    const running = session.run();
    await until(() => sink.events.length === 1, 'ready');
    sink.hold = true;
    const [first] = await batch(1);
    await until(() => sink.ids().length === 1, 'the first entry');
    await batch(6);
    await running;
    expect(sink.events.at(-1)).toEqual({ event: 'overflow', data: JSON.stringify({ cursor: first }), id: undefined });
    expect(sink.ended).toBe(true);
    expect(hub.listeners).toBe(0);
  });

  it('re-reads the database when live entries overflow during the replay, sending each entry once', async () => {
    const [cursor, ...stored] = await batch(10);
    const sink = recordingSink();
    sink.hold = true;
    const session = new StreamSession(
      h.deps,
      hub,
      sourceId,
      {},
      sink,
      { ...DEFAULT_STREAM_OPTIONS, heartbeatMs: 60_000, maxQueue: 2, replayPage: 3 },
      cursor,
    );
    const running = session.run();
    await until(() => sink.events.length === 1, 'ready');
    sink.step();
    await until(() => sink.ids().length === 3, 'the first replay page');
    sink.step();
    await until(() => sink.ids().length === 6, 'the second replay page, held');
    const during = await batch(4);
    sink.release();
    const after = await batch(2);
    const expected = [...stored, ...during, ...after];
    await until(() => sink.ids().length >= expected.length, 'everything');
    expect(sink.ids()).toEqual(expected);
    session.close();
    await running;
  });
});
