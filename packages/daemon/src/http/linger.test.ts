import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { answerBeforeBody, type LingerLimits } from './linger.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A server that refuses every request at once, before reading its body (as the gate's 503 does). */
async function refusing(limits: LingerLimits, readFirst = false) {
  const closed: Array<{ bytesRead: number }> = [];
  const server = createServer((req, res) => {
    req.socket.once('close', () => closed.push({ bytesRead: req.socket.bytesRead }));
    const refuse = () => {
      answerBeforeBody(req, res, limits);
      res
        .writeHead(503, { 'content-type': 'application/json', 'content-length': '16', 'retry-after': '2' })
        .end('{"error":"busy"}');
    };
    if (readFirst) req.resume().once('end', refuse);
    else refuse();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, closed };
}

interface Client {
  readonly socket: Socket;
  /** What the server sent, as text. */
  received(): string;
  /** Resolves with the error that ended sending (EPIPE, ECONNRESET), or null once all of `body` is written. */
  send(body: Buffer, piece?: number, pauseMs?: number): Promise<string | null>;
  /**
   * Resolves when the server has closed its side: its FIN arrived, or its reset did (a write past a
   * closed socket fails with EPIPE, and the socket closes without an `end`).
   */
  readonly ended: Promise<void>;
}

/** A client that keeps sending after the server's FIN, as blocking clients do. */
async function client(port: number, length: number): Promise<Client> {
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  await new Promise((resolve) => socket.once('connect', resolve));
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  socket.write(`POST / HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`);
  return {
    socket,
    received: () => text,
    ended: new Promise((resolve) => {
      socket.once('end', () => resolve());
      socket.once('close', () => resolve());
    }),
    send: (body, piece = 64 * 1024, pauseMs = 0) =>
      new Promise((resolve) => {
        const next = (offset: number): void => {
          if (offset >= body.length) return resolve(null);
          socket.write(body.subarray(offset, offset + piece), (error) => {
            if (error) return resolve('code' in error ? String(error.code) : error.message);
            setTimeout(() => next(offset + piece), pauseMs);
          });
        };
        next(0);
      }),
  };
}

const BOUNDLESS: LingerLimits = { ms: 60_000, idleMs: 60_000, bytes: 1024 * 1024 * 1024 };
const MiB = 1024 * 1024;

describe('a refusal written before its body was read', () => {
  it('says Connection: close, reads the rest of the body, and closes once the body is in', async () => {
    const { port, closed } = await refusing(BOUNDLESS);
    const body = Buffer.alloc(8 * MiB, 0x20);
    const c = await client(port, body.length);
    expect(await c.send(body)).toBeNull();
    await c.ended;
    expect(c.received()).toMatch(/^HTTP\/1\.1 503 [^]*\r\nConnection: close\r\n[^]*\{"error":"busy"\}$/i);
    await expect.poll(() => closed[0]?.bytesRead).toBeGreaterThan(body.length);
  });

  it('closes a client that stops sending after idleMs, its answer already sent', async () => {
    const { port } = await refusing({ ...BOUNDLESS, idleMs: 200 });
    const c = await client(port, 8 * MiB);
    expect(await c.send(Buffer.alloc(MiB, 0x20))).toBeNull();
    await c.ended;
    expect(c.received()).toMatch(/^HTTP\/1\.1 503 /);
  });

  it('stops reading past `bytes`', async () => {
    const { port, closed } = await refusing({ ...BOUNDLESS, bytes: MiB });
    const body = Buffer.alloc(64 * MiB, 0x20);
    const c = await client(port, body.length);
    await c.send(body);
    await c.ended;
    await expect.poll(() => closed[0]?.bytesRead).toBeLessThan(body.length);
  });

  it('stops reading after `ms`, however steadily the client sends', async () => {
    const { port, closed } = await refusing({ ...BOUNDLESS, ms: 300, idleMs: 200 });
    const body = Buffer.alloc(64 * MiB, 0x20);
    const c = await client(port, body.length);
    void c.send(body, 16 * 1024, 20);
    await c.ended;
    await expect.poll(() => closed[0]?.bytesRead).toBeLessThan(body.length);
  });

  it('leaves an answer alone when the body was read', async () => {
    const { port } = await refusing(BOUNDLESS, true);
    const c = await client(port, 1024);
    expect(await c.send(Buffer.alloc(1024, 0x20))).toBeNull();
    await expect.poll(() => c.received()).toMatch(/\{"error":"busy"\}$/);
    expect(c.received()).toMatch(/\r\nConnection: keep-alive\r\n/i);
  });
});
