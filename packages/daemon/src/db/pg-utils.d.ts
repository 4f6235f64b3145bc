// node-postgres's own helpers (`pg/lib/utils.js`, exported by its package.json), which
// @types/pg does not declare: the ones db/pg-copy.ts and db/pg-joined.ts call, typed as its source
// defines them.
declare module 'pg/lib/utils.js' {
  /** A value as node-postgres sends it as a parameter: null, a Buffer (bytea), or text. */
  export function prepareValue(value: unknown): Buffer | string | null;
  /** Text as a quoted literal: quotes doubled, and backslashes doubled in an `E'…'` string. */
  export function escapeLiteral(text: string): string;
}
