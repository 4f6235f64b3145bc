import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { hasFormat, type StringFormat, stringFormat } from './formats.js';

const FORMATS: readonly StringFormat[] = ['uuid', 'date-time', 'date', 'email', 'uri'];

/** Strings of every format, near-misses of each, and ones that mix their characters. */
const SAMPLES = [
  '019a4c2e-7b1d-7c3e-9f00-1234567890ab',
  '019A4C2E-7B1D-7C3E-9F00-1234567890AB',
  '019a4c2e-7b1d-7c3e-9f00-1234567890a',
  '2026-11-26T10:00:00Z',
  '2026-11-26t10:00:00.123+02:00',
  '2026-02-30T10:00:00Z',
  '2026-11-26T24:00:00Z',
  '2026-11-26',
  '2026-13-26',
  '2026-02-30',
  '2026-04-31T08:00:00Z',
  '2024-02-29',
  '2023-02-29T00:00:00+01:00',
  '1900-02-29',
  '2000-02-29T12:00:00Z',
  '20261126',
  'bob@example.com',
  'bob@example',
  'a/b=c@d-e.example.org',
  'https://example.com/a?b=1',
  'mailto://bob@example.com',
  'https://bob:secret@example.com',
  'urn:uuid:019a4c2e-7b1d-7c3e-9f00-1234567890ab',
  'http:/example.com',
  `https://example.com/${'a'.repeat(2100)}`,
  `${'a'.repeat(2040)}@example.com`,
  '',
  'plain text',
];

describe('string formats (issue 28, "Infer")', () => {
  it('names the format of each kind of string, and none past 2,048 characters', () => {
    expect(SAMPLES.map(stringFormat).slice(0, 4)).toEqual(['uuid', 'uuid', undefined, 'date-time']);
    expect(stringFormat('2026-11-26')).toBe('date');
    expect(stringFormat('bob@example.com')).toBe('email');
    expect(stringFormat('https://example.com/a?b=1')).toBe('uri');
    expect(stringFormat(`https://example.com/${'a'.repeat(2100)}`)).toBe(undefined);
  });

  it('names only formats that the validator of api check accepts: no 30 February, no 31 April', () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    const accepted = new Map(FORMATS.map((format) => [format, ajv.compile({ type: 'string', format })]));
    for (const value of SAMPLES) {
      const format = stringFormat(value);
      if (format) expect([value, format, accepted.get(format)?.(value)]).toEqual([value, format, true]);
    }
    expect(['2026-02-30', '2026-04-31T08:00:00Z', '2023-02-29T00:00:00+01:00', '1900-02-29'].map(stringFormat)).toEqual(
      [undefined, undefined, undefined, undefined],
    );
    expect(['2024-02-29', '2000-02-29T12:00:00Z'].map(stringFormat)).toEqual(['date', 'date-time']);
  });

  it('hasFormat answers what stringFormat would, for every format and sample', () => {
    for (const value of SAMPLES)
      for (const format of FORMATS)
        expect([value, format, hasFormat(value, format)]).toEqual([value, format, stringFormat(value) === format]);
  });
});
