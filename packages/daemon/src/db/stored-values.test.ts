import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { compactValues, uuidBytes, uuidText } from './stored-values.js';

it('spells any 16 bytes back as the lower-case UUID they were stored from', () => {
  fc.assert(
    fc.property(fc.uuid(), fc.boolean(), (id, upper) => {
      const bytes = uuidBytes(upper ? id.toUpperCase() : id);
      expect(bytes).toHaveLength(16);
      expect(uuidText(bytes)).toBe(id.toLowerCase());
    }),
  );
  const v7 = randomUUID();
  expect(uuidText(new Uint8Array(uuidBytes(v7)))).toBe(v7);
});

it('decodes id columns of a page in place and leaves a 16-byte payload alone', () => {
  const id = randomUUID();
  const payload = Buffer.alloc(16, 7);
  const rows = [{ id: uuidBytes(id), pathname_id: uuidBytes(id), request_body: payload, traffic_user_id: 'user-1' }];
  compactValues.decodeRows(rows);
  expect(rows[0]).toEqual({ id, pathname_id: id, request_body: payload, traffic_user_id: 'user-1' });
});
