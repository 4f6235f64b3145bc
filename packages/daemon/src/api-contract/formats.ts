/**
 * The `format` a string value has (docs/api-contract.md, "Schemas"): the most specific of the
 * formats JSON Schema and OpenAPI name, or undefined. A field keeps a format only while every
 * sample of it has that same one.
 */
export type StringFormat = 'date-time' | 'date' | 'uuid' | 'email' | 'uri';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// RFC 3339 as ajv-formats checks it: the checker of `api check` must accept what inference writes.
const DATE_TIME =
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])[Tt](?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:[Zz]|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;
const DATE = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])$/;
const EMAIL =
  /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/i;
const URI = /^[a-z][a-z0-9+.-]*:\/\/[^\s/?#]+[^\s]*$/i;

export function stringFormat(value: string): StringFormat | undefined {
  if (value.length > 2048) return undefined;
  if (UUID.test(value)) return 'uuid';
  if (DATE_TIME.test(value) && !Number.isNaN(Date.parse(value.toUpperCase()))) return 'date-time';
  if (DATE.test(value)) return 'date';
  if (EMAIL.test(value)) return 'email';
  if (URI.test(value)) return 'uri';
  return undefined;
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** An integer outside 32 bits is `int64`: clients in typed languages need the wider type. */
export const needsInt64 = (value: number): boolean => value < INT32_MIN || value > INT32_MAX;
