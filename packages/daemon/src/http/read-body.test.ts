import { randomBytes } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../config.js';
import { INTERNAL, knownError, sendJson, writeFailure } from './errors.js';
import { createGate } from './gate.js';
import { type BodyMode, createBodyReader, handOver } from './read-body.js';

const deps = {
  config: defaultConfig('0.0.0-test'),
  largeBodies: createGate({ concurrency: 1, maxWaiting: 1, waitMs: 1000 }),
};

/** A server that answers what the reader made of the body: the value (a buffer as its text) or the error. */
function serve(mode: BodyMode): Server {
  const reader = createBodyReader(1024, mode, deps);
  return createServer((req, res) => {
    reader.read(req, res).then(
      (body) => sendJson(res, 200, { body: Buffer.isBuffer(body) ? `raw:${body.toString('utf8')}` : body }),
      (error: unknown) => writeFailure(req, res, knownError(error) ?? INTERNAL),
    );
  });
}

/** Sends `body` with its length (the plain reader) or chunked (body-parser reads it). */
function send(server: Server, body: Buffer, chunked: boolean): Promise<{ status: number; text: string }> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        port,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(body.length) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('the body reader', () => {
  const servers: Partial<Record<BodyMode, Server>> = {};
  beforeAll(async () => {
    for (const mode of ['parse', 'raw'] as const) {
      const server = serve(mode);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers[mode] = server;
    }
  });
  afterAll(async () => {
    for (const server of Object.values(servers)) await new Promise((resolve) => server.close(resolve));
  });

  const bodies: Record<string, Buffer> = {
    'an object': Buffer.from('{"a":[1,2]}'),
    'a byte-order mark and nothing else': Buffer.from('\uFEFF'),
    'a byte-order mark before JSON': Buffer.from('\uFEFF{"a":1}'),
    'two byte-order marks': Buffer.from('\uFEFF\uFEFF{"a":1}'),
    'white space only': Buffer.from('  '),
    'malformed JSON': Buffer.from('{"a":'),
    'bytes that are not UTF-8': Buffer.from([0x7b, 0xff, 0x7d]),
    'nesting past the limit': Buffer.from(`${'['.repeat(300)}${']'.repeat(300)}`),
    'nesting at the limit': Buffer.from(`${'['.repeat(256)}${']'.repeat(256)}`),
    'a scalar': Buffer.from('"text"'),
  };

  it('reads a body of declared length itself exactly as body-parser reads the same body sent chunked', async () => {
    for (const mode of ['parse', 'raw'] as const) {
      const server = servers[mode];
      if (!server) throw new Error(`no ${mode} server`);
      for (const [name, body] of Object.entries(bodies)) {
        const [plain, chunked] = [await send(server, body, false), await send(server, body, true)];
        expect(plain, `${mode}: ${name}`).toEqual(chunked);
      }
    }
  });
});

it('tells the gate what a large body left: its length when sent as is, none when compressed', async () => {
  const released: (number | undefined)[] = [];
  const config = defaultConfig('0.0.0-test');
  const reader = createBodyReader(16 * 1024 * 1024, 'raw', {
    config: { ...config, limits: { ...config.limits, largeBatchBytes: 1024 } },
    largeBodies: createGate({
      concurrency: 1,
      maxWaiting: 1,
      waitMs: 1000,
      onRelease: (bytes) => released.push(bytes),
    }),
  });
  const server = createServer((req, res) => {
    reader.read(req, res).then(
      () => sendJson(res, 200, {}),
      (error: unknown) => writeFailure(req, res, knownError(error) ?? INTERNAL),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const post = (body: Buffer, headers: Record<string, string>) =>
    new Promise<void>((resolve, reject) => {
      const req = request(
        {
          port,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': String(body.length), ...headers },
        },
        (res) => res.resume().on('end', resolve),
      );
      req.on('error', reject);
      req.end(body);
    });
  try {
    // Large either way (over 1,024 bytes gzipped too); the gzip's length says nothing of what the reader holds.
    const json = Buffer.from(JSON.stringify({ text: randomBytes(100_000).toString('hex') }));
    await post(json, {});
    await post(gzipSync(json), { 'content-encoding': 'gzip' });
    // The gate hears of a holder when its answer's socket closes.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(released).toEqual([json.length, undefined]);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

it('with a gate for stored batches, reads the next large body while a prepared one is stored (§20.28)', async () => {
  const config = defaultConfig('0.0.0-test');
  const released: string[] = [];
  const gate = (name: string) =>
    createGate({
      concurrency: 1,
      maxWaiting: 4,
      waitMs: 5000,
      onRelease: (bytes) => released.push(`${name} ${bytes}`),
    });
  const gates = { largeBodies: gate('reading'), storedBatches: gate('stored') };
  const reader = createBodyReader(16 * 1024 * 1024, 'raw', {
    config: { ...config, limits: { ...config.limits, largeBatchBytes: 1024 } },
    ...gates,
  });
  const log: string[] = [];
  const answers = new Map<string, () => void>();
  const server = createServer((req, res) => {
    const name = req.headers['x-name'] as string;
    void (async () => {
      const body = await reader.read(req, res);
      log.push(`${name} read`);
      await handOver(body);
      log.push(`${name} stored`);
      await new Promise<void>((resolve) => answers.set(name, resolve));
      sendJson(res, 200, {});
    })().catch((error: unknown) => writeFailure(req, res, knownError(error) ?? INTERNAL));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const body = Buffer.from(JSON.stringify({ text: randomBytes(4_000).toString('hex') }));
  const post = (name: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request(
        {
          port,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': String(body.length), 'x-name': name },
        },
        (res) => res.resume().on('end', () => resolve(res.statusCode ?? 0)),
      );
      req.on('error', reject);
      req.end(body);
    });
  try {
    const a = post('a');
    await expect.poll(() => log).toEqual(['a read', 'a stored']);
    // a is stored: b is read and prepared meanwhile, and waits for its turn to be stored.
    const b = post('b');
    await expect.poll(() => log).toEqual(['a read', 'a stored', 'b read']);
    // b holds the reading place: c waits before its body is read.
    const c = post('c');
    await expect.poll(() => gates.largeBodies.waiting).toBe(1);
    expect(gates.storedBatches.running).toBe(1);
    answers.get('a')?.();
    expect(await a).toBe(200);
    await expect.poll(() => log).toEqual(['a read', 'a stored', 'b read', 'b stored', 'c read']);
    await expect.poll(() => answers.has('b')).toBe(true);
    answers.get('b')?.();
    await expect.poll(() => answers.has('c')).toBe(true);
    answers.get('c')?.();
    expect([await b, await c]).toEqual([200, 200]);
    await expect.poll(() => gates.storedBatches.running).toBe(0);
    expect(gates.largeBodies.running).toBe(0);
    // The reclaimer hears of each body once, when its answer is gone; a handed-on place, of nothing.
    expect(released.filter((r) => r.startsWith('stored'))).toEqual([1, 2, 3].map(() => `stored ${body.length}`));
    expect(released.filter((r) => r.startsWith('reading'))).toEqual(['reading 0', 'reading 0', 'reading 0']);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
