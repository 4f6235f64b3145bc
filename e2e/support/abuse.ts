import type { Socket } from 'node:net';
import { composeBody, until } from '@tapline/testkit';
import { admin, type SpawnedDaemon } from './binaries.js';
import { createSource } from './compose.js';
import { rawConnect } from './raw-http.js';
import { createRssSampler, largestSendQueue } from './rss.js';

/**
 * The memory abuse of issue 11, replayed against the built daemon: streams that never read, on
 * several read tokens (past the per-token and total limits), while batches are ingested; then
 * many concurrent 15 MiB batches. Memory is the daemon's resident set, read from /proc (Linux).
 */
export interface AbuseReport {
  readonly idleMb: number;
  readonly peakMb: number;
  /** The peak while only the streams were abused, before the large batches. */
  readonly streamPeakMb: number;
  /** RSS when it first was under 2 × idle after the abuse, or at the end of the window. */
  readonly settledMb: number;
  /** From the end of the abuse until RSS was under 2 × idle; null if it never was within 30 s. */
  readonly settledAfterMs: number | null;
  /** RSS at the end of `observeMs` after the abuse (what the daemon keeps once it is over). */
  readonly afterMb: number;
  readonly streams: { readonly opened: number; readonly refused: number; readonly closedByDaemon: number };
  /** The most bytes the kernel queued on one of the daemon's sockets that nobody read. */
  readonly kernelQueueKb: number;
  readonly largeBatches: { readonly stored: number; readonly refused: number; readonly other: number };
}

export interface AbusePlan {
  readonly streams: number;
  /** Read tokens the streams are spread over, in turn. */
  readonly tokens: number;
  readonly ingestBatches: number;
  readonly largeBatches: number;
  /** How long RSS is watched after the abuse; at least until it settles. */
  readonly observeMs: number;
}

const SETTLE_WINDOW_MS = 30_000;

/** `command` runs an admin command against the daemon's database (its home's SQLite by default). */
export async function replayAbuse(
  daemon: SpawnedDaemon,
  plan: AbusePlan,
  command: (args: readonly string[]) => Promise<string> = (args) => admin(daemon.home, args),
): Promise<AbuseReport> {
  const { url, token } = daemon;
  const port = Number(new URL(url).port);
  const sourceId = await createSource(url, token, 'abuse');
  const readTokens = await Promise.all(
    Array.from({ length: plan.tokens }, () => command(['token', 'create', 'local@localhost', '--scope', 'read'])),
  );
  const post = (path: string, body: string | Buffer) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body,
    });
  const small = JSON.stringify(
    Array.from({ length: 1000 }, (_, i) =>
      composeBody(sourceId, { pathnameUrl: `/abuse/${i}`, requestBody: { note: 'x'.repeat(400) } }),
    ),
  );
  await post(`/http-traffic-record/${sourceId}/batch`, small);
  const rss = createRssSampler(daemon.process.pid ?? 0);
  const idleMb = rss.now();

  // Streams that read their answer's head and then nothing more.
  const sockets: Socket[] = [];
  let closedByDaemon = 0;
  const heads = await Promise.all(
    Array.from({ length: plan.streams }, async (_, i) => {
      const conn = await rawConnect(url);
      sockets.push(conn.socket);
      conn.socket.write(
        `GET /http-traffic/${sourceId}/stream HTTP/1.1\r\nHost: tapline\r\nAuthorization: Bearer ${readTokens[i % plan.tokens]}\r\n\r\n`,
      );
      const head = await conn.waitFor(/^HTTP\/1\.1 \d{3}/, 60_000);
      conn.socket.pause();
      if (head.startsWith('HTTP/1.1 200')) void conn.closed.then(() => (closedByDaemon += 1));
      return head;
    }),
  );
  const opened = heads.filter((h) => h.startsWith('HTTP/1.1 200')).length;
  let kernelQueue = 0;
  for (let i = 0; i < plan.ingestBatches; i++) {
    await post(`/http-traffic-record/${sourceId}/batch`, small);
    kernelQueue = Math.max(kernelQueue, largestSendQueue(port));
  }
  // Every stream fell behind by megabytes: the daemon must have let go of each of them.
  await until(() => closedByDaemon === opened, 'the daemon to close the streams nobody read', 15_000).catch(
    () => undefined,
  );
  const streamPeakMb = rss.peak();

  // Many 15 MiB batches at once.
  const item = JSON.stringify(composeBody(sourceId, { requestBody: { blob: 'y'.repeat(15_000) } }));
  const large = Buffer.from(`[${Array.from({ length: 1000 }, () => item).join(',')}]`);
  const statuses = await Promise.all(
    Array.from({ length: plan.largeBatches }, () =>
      post(`/http-traffic-record/${sourceId}/batch`, large).then(async (r) => (await r.arrayBuffer(), r.status)),
    ),
  );

  for (const socket of sockets) socket.destroy();
  const ended = Date.now();
  const peakMb = rss.peak();
  let settledAfterMs: number | null = null;
  let settledMb = 0;
  for (let elapsed = 0; elapsed < Math.max(plan.observeMs, SETTLE_WINDOW_MS); elapsed = Date.now() - ended) {
    const mb = rss.now();
    if (settledAfterMs === null && mb < 2 * idleMb) [settledAfterMs, settledMb] = [elapsed, mb];
    if (settledAfterMs !== null && elapsed >= plan.observeMs) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const afterMb = rss.now();
  rss.stop();
  return {
    idleMb: Math.round(idleMb),
    peakMb: Math.round(peakMb),
    streamPeakMb: Math.round(streamPeakMb),
    settledMb: Math.round(settledAfterMs === null ? afterMb : settledMb),
    settledAfterMs,
    afterMb: Math.round(afterMb),
    streams: { opened, refused: heads.filter((h) => h.startsWith('HTTP/1.1 429')).length, closedByDaemon },
    kernelQueueKb: Math.round(kernelQueue / 1024),
    largeBatches: {
      stored: statuses.filter((s) => s === 201).length,
      refused: statuses.filter((s) => s === 503).length,
      other: statuses.filter((s) => s !== 201 && s !== 503).length,
    },
  };
}
