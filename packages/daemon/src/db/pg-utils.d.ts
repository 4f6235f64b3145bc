// node-postgres's own helpers (`pg/lib/utils.js`, exported by its package.json), which
// @types/pg does not declare: the one db/pg-copy.ts calls, typed as its source defines it.
declare module 'pg/lib/utils.js' {
  /** A value as node-postgres sends it as a parameter: null, a Buffer (bytea), or text. */
  export function prepareValue(value: unknown): Buffer | string | null;
}
