import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { composeBody } from '@tapline/testkit';
import { admin, type SpawnedDaemon } from './binaries.js';
import { createSource } from './compose.js';
import { rawConnect } from './raw-http.js';

/**
 * The memory abuse of issue 11, replayed against the built daemon: hundreds of streams on one
 * read token that never read while batches are ingested, then many concurrent 15 MiB batches.
 * Memory is the daemon's resident set, read from /proc (Linux).
 */
export interface AbuseReport {
  readonly idleMb: number;
  readonly peakMb: number;
  /** The peak while only the streams were abused, before the large batches. */
  readonly streamPeakMb: number;
  readonly settledMb: number;
  /** From the end of the abuse until RSS was under 2 × idle; null if it never was within 30 s. */
  readonly settledAfterMs: number | null;
  readonly streams: { readonly opened: number; readonly refused: number };
  readonly largeBatches: { readonly stored: number; readonly refused: number; readonly other: number };
}

export interface AbusePlan {
  readonly streams: number;
  readonly ingestBatches: number;
  readonly largeBatches: number;
}

const rssMb = (pid: number): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

export async function replayAbuse(daemon: SpawnedDaemon, plan: AbusePlan): Promise<AbuseReport> {
  const pid = daemon.process.pid ?? 0;
  const { url, token } = daemon;
  const sourceId = await createSource(url, token, 'abuse');
  const readToken = await admin(daemon.home, ['token', 'create', 'local@localhost', '--scope', 'read']);
  const post = (path: string, body: string | Buffer) =>
    fetch(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });
  const small = JSON.stringify(Array.from({ length: 1000 }, (_, i) => composeBody(sourceId, { pathnameUrl: `/abuse/${i}`, requestBody: { note: 'x'.repeat(400) } })));
  await post(`/http-traffic-record/${sourceId}/batch`, small);
  const idleMb = rssMb(pid);
  let peakMb = idleMb;
  const sampler = setInterval(() => (peakMb = Math.max(peakMb, rssMb(pid))), 100);

  // Streams that read their answer's head and then nothing more.
  const sockets: Socket[] = [];
  const heads = await Promise.all(
    Array.from({ length: plan.streams }, async () => {
      const conn = await rawConnect(url);
      sockets.push(conn.socket);
      conn.socket.write(`GET /http-traffic/${sourceId}/stream HTTP/1.1\r\nHost: tapline\r\nAuthorization: Bearer ${readToken}\r\n\r\n`);
      const head = await conn.waitFor(/^HTTP\/1\.1 \d{3}/, 60_000);
      conn.socket.pause();
      return head;
    }),
  );
  const opened = heads.filter((h) => h.startsWith('HTTP/1.1 200')).length;
  for (let i = 0; i < plan.ingestBatches; i++) await post(`/http-traffic-record/${sourceId}/batch`, small);

  const streamPeakMb = Math.max(peakMb, rssMb(pid));
  // Many 15 MiB batches at once.
  const item = JSON.stringify(composeBody(sourceId, { requestBody: { blob: 'y'.repeat(15_000) } }));
  const large = Buffer.from(`[${Array.from({ length: 1000 }, () => item).join(',')}]`);
  const statuses = await Promise.all(Array.from({ length: plan.largeBatches }, () => post(`/http-traffic-record/${sourceId}/batch`, large).then(async (r) => (await r.arrayBuffer(), r.status))));

  for (const socket of sockets) socket.destroy();
  const ended = Date.now();
  let settledAfterMs: number | null = null;
  while (Date.now() - ended < 30_000) {
    if (rssMb(pid) < 2 * idleMb) {
      settledAfterMs = Date.now() - ended;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  clearInterval(sampler);
  return {
    idleMb: Math.round(idleMb),
    peakMb: Math.round(peakMb),
    streamPeakMb: Math.round(streamPeakMb),
    settledMb: Math.round(rssMb(pid)),
    settledAfterMs,
    streams: { opened, refused: heads.filter((h) => h.startsWith('HTTP/1.1 429')).length },
    largeBatches: { stored: statuses.filter((s) => s === 201).length, refused: statuses.filter((s) => s === 503).length, other: statuses.filter((s) => s !== 201 && s !== 503).length },
  };
}
