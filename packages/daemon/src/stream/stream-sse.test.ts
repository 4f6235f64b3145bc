import { contract, type TaplineClient } from '@tapline/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { composeBody, createSource, type Harness, startHarness, type TestUser } from '@tapline/testkit/daemon';
import { createTrafficBus, type TrafficBus } from './bus.js';

/**
 * The stream read as a plain EventSource would: the raw `id:` lines, no client-side
 * de-duplication. Entries keep arriving while the client connects and reconnects, and the bus
 * tells streams about them a little after they commit (as it may: publishing follows the commit),
 * so every replay reads entries that then arrive live as well; the server alone must keep each
 * id to one delivery.
 */

/** Publishes each commit 30 ms late: longer than a replay takes, shorter than the test. */
function lateBus(): TrafficBus {
  const bus = createTrafficBus();
  return {
    publish: (entries) => void setTimeout(() => bus.publish(entries), 30),
    subscribe: (listener) => bus.subscribe(listener),
  };
}

interface Reading {
  readonly ids: string[];
  stop(): Promise<void>;
}

function read(h: Harness, token: string, sourceId: string, lastEventId?: string): Reading {
  const ids: string[] = [];
  const controller = new AbortController();
  const done = (async () => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
    };
    const response = await h.fetch(`/http-traffic/${sourceId}/stream`, { headers, signal: controller.signal });
    const decoder = new TextDecoder();
    let text = '';
    for await (const chunk of response.body ?? []) {
      text += decoder.decode(chunk as Uint8Array, { stream: true });
      let end: number;
      while ((end = text.indexOf('\n\n')) >= 0) {
        const event = text.slice(0, end);
        text = text.slice(end + 2);
        // The `ready` event repeats the cursor it starts from; only entry events count.
        const id = /^id: (.*)$/m.exec(event)?.[1];
        if (id && !/^event: /m.test(event)) ids.push(id);
      }
    }
  })().catch((error: unknown) => {
    if (!controller.signal.aborted) throw error;
  });
  return {
    ids,
    stop: async () => {
      controller.abort();
      await done;
    },
  };
}

describe('the stream, read raw across reconnects', () => {
  let h: Harness;
  let user: TestUser;
  let sourceId: string;
  beforeEach(async () => {
    h = await startHarness({ bus: lateBus() });
    user = await h.user();
    sourceId = (await createSource(user.client)).id;
  });
  afterEach(() => h.close());

  const batch = (client: TaplineClient, n: number) =>
    client.call(contract.composeBatch, {
      params: { trafficSourceId: sourceId },
      body: Array.from({ length: n }, () => composeBody(sourceId)),
    });

  it('never sends an id twice, though entries arrive during every replay', async () => {
    const first = await batch(user.client, 1);
    let ingesting = true;
    const writer = (async () => {
      while (ingesting) await batch(user.client, 20);
    })();
    const seen: string[] = [];
    let cursor = first.ids[0];
    for (let round = 0; round < 6; round++) {
      const reading = read(h, user.token, sourceId, cursor);
      await expect.poll(() => reading.ids.length, { timeout: 10_000 }).toBeGreaterThan(50);
      await reading.stop();
      seen.push(...reading.ids);
      cursor = reading.ids.at(-1);
    }
    ingesting = false;
    await writer;
    expect(seen.length).toBeGreaterThan(300);
    expect(seen.filter((id, i) => seen.indexOf(id) !== i)).toEqual([]);
    expect([...seen].sort()).toEqual(seen);
  });
});
