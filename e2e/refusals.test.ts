import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError, createClient, createRecorder, type DropEvent } from '@tapline/shared';
import { composeBody } from '@tapline/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, startDaemon, tempHome, type SpawnedDaemon } from './support/binaries.js';
import { createSource } from './support/compose.js';
import { type Outcome, sendWhole, sendWithNodeHttp } from './support/send-whole.js';

/**
 * Refusals the client can read (issue 24, problem 7). A refusal written before the body is read
 * (the large-batch gate's 503, 413, 415, a bad token) used to be followed by a close while the
 * client was still sending, so the unread bytes reset the connection and a client that reads its
 * answer after sending (Python's http.client and most libraries outside JavaScript) got EPIPE or
 * ECONNRESET. The daemon now reads and discards the rest, bounded, then closes (nginx's
 * lingering close). These clients say `Connection: close`, as one-shot clients do.
 */
const home = tempHome('tapline-refusals-');
let daemon: SpawnedDaemon;
let sourceId: string;
let large: Buffer;

beforeAll(async () => {
  daemon = await startDaemon(home.path);
  sourceId = await createSource(daemon.url, daemon.token, 'refusals');
  const item = JSON.stringify(composeBody(sourceId, { requestBody: { blob: 'y'.repeat(15_500) } }));
  large = Buffer.from(`[${Array.from({ length: 1000 }, () => item).join(',')}]`);
});
afterAll(async () => {
  await daemon?.stop();
  home.remove();
});

const batchPath = () => `/http-traffic-record/${sourceId}/batch`;
const headers = (extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${daemon.token}`,
  'content-type': 'application/json',
  connection: 'close',
  ...extra,
});

/** What a test compares: the status and the daemon's message, or the error that replaced them. */
function summary(outcome: Outcome): string {
  if ('error' in outcome) return outcome.error;
  const { status, headers: answered, body } = outcome.answer;
  const retry = answered['retry-after'] ? ` retry-after=${answered['retry-after']}` : '';
  return status === 201 ? '201' : `${status}${retry} ${(JSON.parse(body) as { error: string }).error}`;
}

describe('a refusal written before the body was read', () => {
  it('reaches every one of 8 concurrent 15 MiB batches: 201 or 503 with Retry-After, never EPIPE or ECONNRESET', async () => {
    expect(large.length).toBeGreaterThan(15 * 1024 * 1024);
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () => sendWhole(daemon.url, { path: batchPath(), headers: headers(), body: large })),
    );
    const seen = outcomes.map(summary);
    const readable = ['201', '503 retry-after=2 Too many large batches at once; retry shortly'];
    expect(
      seen.filter((s) => !readable.includes(s)),
      seen.join('\n'),
    ).toEqual([]);
    // One batch at a time and four waiting (--max-large-batches 1): the other three are refused at once.
    expect(seen.filter((s) => s.startsWith('503')).length, seen.join('\n')).toBeGreaterThanOrEqual(3);
  }, 120_000);

  it('reaches the client of an oversized body (413), of a body of the wrong type (415), of a bad token (401) and of a bad length (400)', async () => {
    const oversized = Buffer.concat([large, Buffer.from(' '.repeat(2 * 1024 * 1024))]);
    const [tooLarge, wrongType, badToken, badLength] = await Promise.all([
      sendWhole(daemon.url, { path: batchPath(), headers: headers(), body: oversized }),
      sendWhole(daemon.url, { path: batchPath(), headers: headers({ 'content-type': 'text/plain' }), body: large }),
      sendWhole(daemon.url, {
        path: batchPath(),
        headers: headers({ authorization: 'Bearer not-a-token' }),
        body: large,
      }),
      // A length Node's parser refuses, so that what follows cannot be framed: read until the client is done.
      sendWhole(daemon.url, { path: batchPath(), headers: headers({ 'transfer-encoding': 'chunked' }), body: large }),
    ]);
    expect(summary(tooLarge)).toBe('413 Request body too large');
    expect(summary(wrongType)).toBe('415 Content-Type must be application/json');
    expect(summary(badToken)).toBe('401 Invalid token');
    expect(summary(badLength)).toBe('400 Bad Request: the HTTP request could not be parsed');
  }, 60_000);

  it("reaches node:http's own client, which stops sending once answered: no EPIPE after the answer", async () => {
    const send = (extra: Record<string, string>) =>
      sendWithNodeHttp(daemon.url, { path: batchPath(), headers: headers(extra), body: large });
    const answers = await Promise.all([
      send({ 'content-type': 'text/plain' }),
      send({ authorization: 'Bearer not-a-token' }),
    ]);
    expect(answers.map(({ status, errors }) => ({ status, errors }))).toEqual([
      { status: 415, errors: [] },
      { status: 401, errors: [] },
    ]);
  }, 60_000);

  it('is what `tapline record` shows for an oversized record, not a network error', async () => {
    const file = join(home.path, 'oversized.json');
    writeFileSync(file, JSON.stringify(composeBody(sourceId, { requestBody: { blob: 'z'.repeat(3 * 1024 * 1024) } })));
    const result = await cli(['record', sourceId, '--file', file], { home: home.path });
    expect(result.stderr).toMatch(/^tapline: the daemon refused the input as too large: .*\n.*--max-body/m);
    expect(result.stderr).not.toMatch(/EPIPE|ECONNRESET|cannot reach/);
    expect(result.exitCode).toBe(7);
  });

  it("is what the recorder (the proxy's, @tapline/node's) reports for a record the daemon refuses", async () => {
    const drops: DropEvent[] = [];
    const recorder = createRecorder({
      client: createClient({ baseUrl: daemon.url, token: daemon.token }),
      sourceId,
      onDrop: (event) => drops.push(event),
    });
    const { trafficSourceId: _path, ...record } = composeBody(sourceId, {
      requestBody: { blob: 'z'.repeat(17 * 1024 * 1024) },
    });
    recorder.record(record);
    expect(await recorder.flush(30_000)).toBe(true);
    const [drop] = drops;
    expect(drop?.error).toBeInstanceOf(ApiError);
    expect({
      reason: drop?.reason,
      status: drop?.error instanceof ApiError ? drop.error.status : null,
      message: drop?.error?.message,
    }).toEqual({
      reason: 'rejected',
      status: 413,
      message: 'Request body too large',
    });
  }, 60_000);
});
