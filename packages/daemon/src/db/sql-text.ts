/** Pieces of SQL text for the statements SQLite's writers prepare by hand (no values in them). */

/** `"a", "b", "c"`: column names, quoted as Kysely quotes them. */
export const quoted = (columns: readonly string[]): string => columns.map((c) => `"${c}"`).join(', ');

/** `?, ?, ?`: one parameter slot per value. */
export const slots = (count: number): string => Array.from({ length: count }, () => '?').join(', ');
