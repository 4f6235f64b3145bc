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

const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Whether the day of a `YYYY-MM-DD…` text exists (the patterns allow 30 February): ajv-formats,
 * which `api check` validates with, rejects one that does not, and Date.parse rolled it over to March.
 */
function dayExists(text: string): boolean {
  const year = Number(text.slice(0, 4));
  const month = Number(text.slice(5, 7));
  const day = Number(text.slice(8, 10));
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : (DAYS[month] ?? 0));
}

/** The test of each format, most specific first: no string passes two of them (each needs what the others exclude). */
const TESTS: readonly (readonly [StringFormat, (value: string) => boolean])[] = [
  ['uuid', (value) => UUID.test(value)],
  ['date-time', (value) => DATE_TIME.test(value) && dayExists(value) && !Number.isNaN(Date.parse(value.toUpperCase()))],
  ['date', (value) => DATE.test(value) && dayExists(value)],
  ['email', (value) => EMAIL.test(value)],
  ['uri', (value) => URI.test(value)],
];
const TEST_OF = new Map(TESTS);

/** Longer strings have no format: the regexes are not run on large texts. */
const FORMAT_LENGTH = 2048;

export function stringFormat(value: string): StringFormat | undefined {
  if (value.length > FORMAT_LENGTH) return undefined;
  for (const [format, test] of TESTS) if (test(value)) return format;
  return undefined;
}

/**
 * Whether `stringFormat(value)` is `format`, with that format's test alone: a field that has kept
 * a format (a uuid, a date-time) is asked this for every further sample, and no string passes two
 * tests, so the others need not run.
 */
export function hasFormat(value: string, format: StringFormat): boolean {
  return value.length <= FORMAT_LENGTH && (TEST_OF.get(format)?.(value) ?? false);
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** An integer outside 32 bits is `int64`: clients in typed languages need the wider type. */
export const needsInt64 = (value: number): boolean => value < INT32_MIN || value > INT32_MAX;
