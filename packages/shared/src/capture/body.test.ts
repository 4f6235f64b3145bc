import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { captureBody, createBodyCollector } from './body.js';
import { truncationMarker } from './truncation.js';
import { isRecordedMethod, toRecordBody } from './transaction.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('captureBody', () => {
  it('parses JSON, including +json types and JSON without a content type', async () => {
    expect(await captureBody({ body: bytes('{"a":[1,2]}'), contentType: 'application/json; charset=utf-8' })).toEqual({
      a: [1, 2],
    });
    expect(await captureBody({ body: bytes('{"title":"x"}'), contentType: 'application/problem+json' })).toEqual({
      title: 'x',
    });
    expect(await captureBody({ body: bytes('[1]') })).toEqual([1]);
  });

  it('keeps malformed JSON as text, and empty bodies as null', async () => {
    expect(await captureBody({ body: bytes('{nope'), contentType: 'application/json' })).toBe('{nope');
    expect(await captureBody({ body: Buffer.alloc(0), contentType: 'application/json' })).toBeNull();
  });

  it('keeps text up to the cap, then truncates with a marker naming the sizes', async () => {
    expect(await captureBody({ body: bytes('hello'), contentType: 'text/plain' })).toBe('hello');
    const long = 'é'.repeat(100); // 200 bytes
    const shown = await captureBody({ body: bytes(long), contentType: 'text/html', maxBytes: 51 });
    // The cut falls inside a two-byte character, which is left out rather than mangled.
    expect(shown).toBe('é'.repeat(25) + truncationMarker(51, 200));
  });

  it('truncates JSON over the cap as text rather than storing it whole', async () => {
    const json = JSON.stringify({ items: Array.from({ length: 100 }, (_, i) => i) });
    const shown = await captureBody({ body: bytes(json), contentType: 'application/json', maxBytes: 20 });
    expect(shown).toBe(json.slice(0, 20) + truncationMarker(20, json.length));
  });

  it('redacts a body over the cap before cutting it: keys before the cut, a value the cut splits, in JSON, forms and gzip bodies (issue 24)', async () => {
    const json = `{"user":"ann","password":"hunter2-aaaa","nested":{"ApiKey":"k-999"},"padding":"${'p'.repeat(40)}","refresh_token":"r-${'9'.repeat(60)}","after":"x"}`;
    const cut = json.indexOf('r-999') + 12; // inside refresh_token's value
    const cuts = [
      await captureBody({ body: bytes(json), contentType: 'application/json', maxBytes: cut }),
      await captureBody({
        body: gzipSync(json),
        contentType: 'application/json',
        contentEncoding: 'gzip',
        maxBytes: cut,
      }),
    ];
    for (const shown of cuts) {
      expect(shown).toMatch(
        /^\{"user":"ann","password":"\[REDACTED\]","nested":\{"ApiKey":"\[REDACTED\]"\},"padding":"p+","refresh_token":"\[REDA/,
      );
      expect(JSON.stringify(shown)).not.toMatch(/hunter2|k-999|r-9/);
    }
    const form = `user=ann&password=hunter2-aaaa&note=${'n'.repeat(40)}&access_token=t-${'9'.repeat(60)}`;
    const formCut = form.indexOf('t-999') + 5;
    const shownForm = await captureBody({
      body: bytes(form),
      contentType: 'application/x-www-form-urlencoded',
      maxBytes: formCut,
    });
    expect(shownForm).toBe(
      `user=ann&password=[REDACTED]&note=${'n'.repeat(40)}&access_token=[REDACT${truncationMarker(formCut, form.length)}`,
    );
  });

  it('counts the shown bytes of the redacted text, cut on a character boundary', async () => {
    const text = `{"token":"${'s'.repeat(50)}","name":"${'é'.repeat(40)}"}`;
    const shown = await captureBody({ body: bytes(text), contentType: 'text/plain', maxBytes: 35 });
    // {"token":"[REDACTED]","name":" is 30 bytes; a two-byte character fits twice in the 5 left.
    expect(shown).toBe(`{"token":"[REDACTED]","name":"éé${truncationMarker(35, Buffer.byteLength(text))}`);
  });

  it('turns form bodies into fields, so the daemon can redact password=', async () => {
    expect(
      await captureBody({
        body: bytes('user=ann&password=pw&tag=a&tag=b'),
        contentType: 'application/x-www-form-urlencoded',
      }),
    ).toEqual({
      user: 'ann',
      password: 'pw',
      tag: ['a', 'b'],
    });
  });

  it('describes binary bodies instead of storing them', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]);
    expect(await captureBody({ body: png, contentType: 'image/png' })).toBe('[binary body: image/png, 8 bytes]');
    expect(await captureBody({ body: png })).toBe('[binary body: unknown type, 8 bytes]');
    expect(
      await captureBody({ body: png.subarray(0, 4), totalBytes: 5000, contentType: 'application/octet-stream' }),
    ).toBe('[binary body: application/octet-stream, 5000 bytes]');
  });

  it('decodes gzip, deflate (zlib and raw) and br for the record', async () => {
    const json = bytes('{"ok":true}');
    for (const [encoding, encoded] of [
      ['gzip', gzipSync(json)],
      ['deflate', deflateSync(json)],
      ['deflate', deflateRawSync(json)],
      ['br', brotliCompressSync(json)],
    ] as const) {
      expect(await captureBody({ body: encoded, contentType: 'application/json', contentEncoding: encoding })).toEqual({
        ok: true,
      });
    }
  });

  it('stops inflating at the cap, so a small bomb costs little', async () => {
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, 'a'));
    const shown = await captureBody({ body: bomb, contentType: 'text/plain', contentEncoding: 'gzip', maxBytes: 100 });
    expect(shown).toBe('a'.repeat(100) + truncationMarker(100, undefined));
  });

  it('decodes the kept prefix of a large gzip body', async () => {
    const text = 'line of text\n'.repeat(20_000);
    const encoded = gzipSync(bytes(text));
    const collector = createBodyCollector(64);
    for (let i = 0; i < encoded.length; i += 100) collector.push(encoded.subarray(i, i + 100));
    expect(collector.size).toBe(encoded.length);
    const shown = await captureBody({
      body: collector.bytes(),
      totalBytes: collector.size,
      contentType: 'text/plain',
      contentEncoding: 'gzip',
      maxBytes: 64,
    });
    expect(shown).toBe(text.slice(0, 64) + truncationMarker(64, undefined));
  });

  it('describes bodies it cannot decode', async () => {
    expect(await captureBody({ body: bytes('not gzip'), contentType: 'text/plain', contentEncoding: 'gzip' })).toBe(
      '[binary body: text/plain, 8 bytes, undecodable gzip]',
    );
    expect(await captureBody({ body: bytes('x'), contentType: 'text/plain', contentEncoding: 'zstd' })).toBe(
      '[binary body: text/plain, 1 bytes, zstd-encoded]',
    );
  });
});

describe('createBodyCollector', () => {
  it('keeps a bounded prefix and counts every byte', () => {
    const collector = createBodyCollector(10);
    collector.push('abc');
    collector.push(Buffer.alloc(5000, 'x'));
    collector.push('tail', 'utf8');
    expect(collector.size).toBe(5007);
    expect(collector.bytes().length).toBeLessThan(2000);
    expect(collector.bytes().subarray(0, 5).toString()).toBe('abcxx');
  });
});

describe('toRecordBody', () => {
  it('splits the query off the pathname and builds the domain URL from the Host', () => {
    const body = toRecordBody({
      method: 'post',
      url: '/orders/7?page=2&tag=a&tag=b',
      host: 'shop.local:3000',
      protocol: 'HTTP',
      status: 201,
      elapsedTime: 3.14159,
      requestHeaders: { host: 'shop.local:3000', 'content-length': 2, skipped: undefined },
      responseHeaders: { 'set-cookie': ['a=1', 'b=2'] },
      requestBody: {},
      responseBody: null,
    });
    expect(body).toEqual({
      domainUrl: 'http://shop.local:3000',
      pathnameUrl: '/orders/7',
      status: 201,
      protocol: 'HTTP',
      method: 'POST',
      elapsedTime: 3.142,
      requestHeaders: { host: 'shop.local:3000', 'content-length': '2' },
      requestBody: {},
      queryParams: { page: '2', tag: ['a', 'b'] },
      responseHeaders: { 'set-cookie': ['a=1', 'b=2'] },
      responseBody: null,
    });
  });

  it('records only the spec five methods', () => {
    expect(['GET', 'post', 'PUT', 'DELETE', 'patch'].every(isRecordedMethod)).toBe(true);
    expect(['HEAD', 'OPTIONS', 'TRACE', 'CONNECT', undefined].some(isRecordedMethod)).toBe(false);
    const base = {
      url: '/',
      protocol: 'HTTP',
      status: 200,
      elapsedTime: 1,
      requestHeaders: {},
      responseHeaders: {},
      requestBody: null,
      responseBody: null,
    } as const;
    expect(toRecordBody({ ...base, method: 'HEAD' })).toBeNull();
    expect(toRecordBody({ ...base, method: 'GET', host: 'bad host^' })?.domainUrl).toBe('http://localhost');
  });
});
