import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSseParser, type SseEvent } from './sse.js';

function parseAll(chunks: readonly string[]): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createSseParser((e) => events.push(e));
  for (const chunk of chunks) parser.feed(chunk);
  return events;
}

const STREAM =
  'retry: 250\n\n: heartbeat\n\nevent: ready\nid: a1\ndata: {"cursor":"a1"}\n\nid: b2\ndata: {"x":1}\ndata: {"y":2}\n\nid:c3\ndata\n\n';
const EXPECTED: SseEvent[] = [
  { event: 'ready', data: '{"cursor":"a1"}', id: 'a1' },
  { event: 'message', data: '{"x":1}\n{"y":2}', id: 'b2' },
  { event: 'message', data: '', id: 'c3' },
];

describe('createSseParser', () => {
  it('reads events, multi-line data, ids and comments', () => {
    expect(parseAll([STREAM])).toEqual(EXPECTED);
  });

  it('takes CRLF and CR line endings', () => {
    expect(parseAll([STREAM.replace(/\n/g, '\r\n')])).toEqual(EXPECTED);
    expect(parseAll([STREAM.replace(/\n/g, '\r')])).toEqual(EXPECTED);
  });

  it('gives the same events however the bytes are split', () => {
    fc.assert(
      fc.property(fc.constantFrom('\n', '\r\n', '\r'), fc.array(fc.nat(), { maxLength: 12 }), (eol, cuts) => {
        const text = STREAM.replace(/\n/g, eol);
        const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const chunks = [0, ...points].map((p, i, all) => text.slice(p, all[i + 1] ?? text.length));
        expect(parseAll(chunks)).toEqual(EXPECTED);
      }),
    );
  });

  it('does not dispatch an event whose blank line has not arrived', () => {
    expect(parseAll(['id: x\ndata: 1\n'])).toEqual([]);
  });
});
