import { describe, expect, it } from 'vitest';
import { captureBody } from './body.js';
import { placeholderOf } from './placeholder.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('placeholderOf', () => {
  it('finds the marker of every body captureBody did not keep whole', async () => {
    const cut = await captureBody({ body: bytes('x'.repeat(200)), contentType: 'text/plain', maxBytes: 50 });
    const prefix = await captureBody({
      body: bytes('{"a":1,'),
      totalBytes: 90_000,
      contentType: 'application/json',
      maxBytes: 4,
    });
    const binary = await captureBody({ body: Buffer.from([0x89, 0x50, 0, 1]), contentType: 'image/png' });
    const undecodable = await captureBody({
      body: bytes('not gzip'),
      contentType: 'text/plain',
      contentEncoding: 'gzip',
    });
    expect([cut, prefix, binary, undecodable].map((body) => placeholderOf(body))).toEqual([
      '…[truncated by Tapline: 50 of 200 bytes shown]',
      '…[truncated by Tapline: first 4 bytes shown]',
      '[binary body: image/png, 4 bytes]',
      '[binary body: text/plain, 8 bytes, undecodable gzip]',
    ]);
  });

  it('is null for bodies kept whole, even ones that mention a marker', async () => {
    for (const body of [
      null,
      undefined,
      { a: '[binary body: image/png, 4 bytes]' },
      'hello',
      'see [binary body: image/png, 4 bytes] below',
      '…[truncated by Tapline: 5 of 9 bytes shown] and more',
    ]) {
      expect(placeholderOf(body)).toBeNull();
    }
    expect(placeholderOf(await captureBody({ body: bytes('short text'), contentType: 'text/plain' }))).toBeNull();
  });
});
