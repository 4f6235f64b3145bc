import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon, tempHome, type SpawnedDaemon } from './binaries.js';

/** A daemon started with a heap probe, and a source to send it traffic with. */
export interface HeapProbed {
  readonly daemon: SpawnedDaemon;
  readonly headers: Record<string, string>;
  readonly sourceId: string;
  /** The figure the probe last wrote (it writes one every 50 ms). */
  readonly read: () => number;
  readonly stop: () => Promise<void>;
}

/**
 * The built daemon in a new home with `args` and a preloaded probe from e2e/fixtures/heap-probe
 * (NODE_OPTIONS=--require), which writes one figure of V8's heap to a file the test reads.
 */
export async function startHeapProbed(probe: string, args: readonly string[] = []): Promise<HeapProbed> {
  const home = tempHome('tapline-heap-probe-');
  const out = join(home.path, 'probe-figure');
  const daemon = await startDaemon(home.path, args, {
    NODE_OPTIONS: `--require ${join(import.meta.dirname, '..', 'fixtures', 'heap-probe', probe)}`,
    HEAP_PROBE_OUT: out,
  });
  const headers = { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' };
  const source = (await (
    await fetch(`${daemon.url}/traffic-source`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'heap', trafficDomain: 'shop.example.com' }),
    })
  ).json()) as { id: string };
  return {
    daemon,
    headers,
    sourceId: source.id,
    read: () => Number(readFileSync(out, 'utf8')),
    async stop() {
      await daemon.stop();
      home.remove();
    },
  };
}
