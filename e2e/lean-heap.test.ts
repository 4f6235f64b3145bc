import { realisticRecord } from '@tapline/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type HeapProbed, startHeapProbed } from './support/heap-probed.js';

/**
 * The served daemon's lean heap (decisions §20.13): on by default, V8's young generation held at
 * 16 MiB under sustained single composes, where V8 alone grows it to 32; `--no-lean-heap` leaves
 * V8 to it and `--lean-heap` is still accepted. A preloaded probe reads the young generation's
 * size inside the daemon; nothing here is timed.
 */
const MIB = 1024 * 1024;

const started: HeapProbed[] = [];
afterEach(async () => {
  for (const probed of started.splice(0)) await probed.stop();
});

/** The largest young generation of a daemon started with `args` under 6,000 single composes. */
async function youngGenerationUnderComposes(args: string[]): Promise<number> {
  const probed = await startHeapProbed('probe.cjs', args);
  started.push(probed);
  const { daemon, headers, sourceId } = probed;
  let next = 0;
  const connection = async () => {
    for (let n = next++; n < 6_000; n = next++) {
      const response = await fetch(`${daemon.url}/http-traffic-record/${sourceId}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(realisticRecord(n % 200, sourceId)),
      });
      expect(response.status).toBe(201);
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 32 }, connection));
  await new Promise((resolve) => setTimeout(resolve, 200));
  return probed.read();
}

describe('the lean heap', () => {
  it('holds the young generation at 16 MiB by default, and lets V8 grow it with --no-lean-heap', async () => {
    expect(await youngGenerationUnderComposes([])).toBeLessThanOrEqual(16 * MIB);
    expect(await youngGenerationUnderComposes(['--no-lean-heap'])).toBeGreaterThan(16 * MIB);
  }, 180_000);

  it('still accepts --lean-heap', async () => {
    expect(await youngGenerationUnderComposes(['--lean-heap'])).toBeLessThanOrEqual(16 * MIB);
  }, 120_000);
});
