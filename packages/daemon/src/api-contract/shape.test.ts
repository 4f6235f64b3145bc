import type { JsonValue } from '@tapline/shared';
import { describe, expect, it } from 'vitest';
import { ENUM_MIN_SAMPLES, emptyShape, MAX_PROPERTIES, observe, schemaOf } from './shape.js';

const schemaOfAll = (values: JsonValue[]) => {
  const shape = emptyShape();
  for (const v of values) observe(shape, v);
  return schemaOf(shape);
};

describe('schemas merged over every sample (issue 28, "Infer")', () => {
  it('unions the types seen, with null as a type, and integer widened to number by a fraction', () => {
    expect(schemaOfAll([1, 2])).toEqual({ type: 'integer' });
    expect(schemaOfAll([1, 2.5])).toEqual({ type: 'number' });
    expect(schemaOfAll(['a', null])).toEqual({ type: ['string', 'null'] });
    expect(schemaOfAll([null])).toEqual({ type: 'null' });
    expect(schemaOfAll([true, 'x', 3])).toEqual({ type: ['boolean', 'integer', 'string'] });
  });

  it('requires only the properties every object had, from all samples and not the first', () => {
    const schema = schemaOfAll([{ id: 1, name: 'a' }, { id: 2 }, { id: 3, name: null, tags: [] }]);
    expect(schema).toEqual({
      type: 'object',
      properties: { id: { type: 'integer' }, name: { type: ['string', 'null'] }, tags: { type: 'array', items: {} } },
      required: ['id'],
    });
  });

  it('merges the items of arrays of objects', () => {
    const schema = schemaOfAll([[{ a: 1 }, { a: 2, b: 'x' }], [{ a: 3.5 }]]);
    expect(schema).toEqual({
      type: 'array',
      items: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'string' } }, required: ['a'] },
    });
  });

  it('detects date-time, date, uuid, email, uri and int64, and drops a format two samples disagree on', () => {
    expect(schemaOfAll(['2026-11-26T10:00:00Z', '2026-11-26T10:00:00.123+02:00'])).toEqual({
      type: 'string',
      format: 'date-time',
    });
    expect(schemaOfAll(['2026-11-26'])).toEqual({ type: 'string', format: 'date' });
    expect(schemaOfAll(['019a4c2e-7b1d-7c3e-9f00-1234567890ab'])).toEqual({ type: 'string', format: 'uuid' });
    expect(schemaOfAll(['bob@example.com'])).toEqual({ type: 'string', format: 'email' });
    expect(schemaOfAll(['https://example.com/a?b=1'])).toEqual({ type: 'string', format: 'uri' });
    expect(schemaOfAll([2 ** 31 - 1])).toEqual({ type: 'integer' });
    expect(schemaOfAll([2 ** 31])).toEqual({ type: 'integer', format: 'int64' });
    expect(schemaOfAll(['2026-11-26', 'tomorrow'])).toEqual({ type: 'string' });
    expect(schemaOfAll(['2026-11-26', '2026-11-26T10:00:00Z'])).toEqual({ type: 'string' });
  });

  it('writes an enumeration only for few values recurring over many samples', () => {
    const statuses = Array.from({ length: ENUM_MIN_SAMPLES }, (_, i) => (i % 3 === 0 ? 'paused' : 'active'));
    expect(schemaOfAll(statuses)).toEqual({ type: 'string', enum: ['active', 'paused'] });
    expect(schemaOfAll(statuses.slice(1))).toEqual({ type: 'string' });
    expect(schemaOfAll([...statuses, null])).toEqual({ type: ['string', 'null'], enum: ['active', 'paused', null] });
    const names = Array.from({ length: 40 }, (_, i) => `name-${i % 9}`);
    expect(schemaOfAll(names)).toEqual({ type: 'string' });
    const ids = Array.from({ length: 40 }, () => '019a4c2e-7b1d-7c3e-9f00-1234567890ab');
    expect(schemaOfAll(ids)).toEqual({ type: 'string', format: 'uuid' });
  });

  it('keeps at most MAX_PROPERTIES named properties; the rest become additionalProperties', () => {
    const wide = Object.fromEntries(
      Array.from({ length: MAX_PROPERTIES + 1 }, (_, i) => [`k${String(i).padStart(4, '0')}`, i]),
    );
    const schema = schemaOfAll([wide]) as { properties: object; additionalProperties: object };
    expect(Object.keys(schema.properties)).toHaveLength(MAX_PROPERTIES);
    expect(schema.additionalProperties).toEqual({ type: 'integer' });
  });
});
