import { inflateRawSync } from 'node:zlib';
import Database from 'better-sqlite3';

const PAYLOADS = ['request_headers', 'request_body', 'query_params', 'response_headers', 'response_body'] as const;
/** The daemon's deflate window (packages/daemon/src/db/payload.ts). */
const WINDOW_BITS = 13;

/**
 * Every stored entry's pathname and payloads as text. Payloads are deflated against a dictionary per
 * source (docs/decisions.md §19.2), so the raw file does not show what a row holds: a secret
 * stored in a body would be missed by a search of the file's bytes. This reads the rows as the
 * daemon does: a string is stored text; a blob is the dictionary id (LEB128), then raw deflate.
 */
export function decodedPayloads(file: string): string {
  const db = new Database(file, { readonly: true });
  try {
    const dictionaries = new Map<number, Buffer>();
    for (const row of db.prepare('select id, data from payload_dictionaries').all() as { id: number; data: Buffer }[])
      dictionaries.set(row.id, row.data);
    const out: string[] = [];
    const rows = db.prepare(
      `select p.value as pathname, ${PAYLOADS.map((c) => `t.${c}`).join(', ')} from http_traffic t join pathnames p on p.id = t.pathname_id`,
    );
    for (const row of rows.iterate() as IterableIterator<Record<string, string | Buffer | null>>) {
      out.push(String(row.pathname));
      for (const column of PAYLOADS) {
        const value = row[column];
        if (value !== null && value !== undefined)
          out.push(typeof value === 'string' ? value : inflated(value, dictionaries));
      }
    }
    return out.join('\n');
  } finally {
    db.close();
  }
}

function inflated(value: Buffer, dictionaries: ReadonlyMap<number, Buffer>): string {
  let id = 0;
  let scale = 1;
  let offset = 0;
  for (;;) {
    const byte = value[offset++] ?? 0;
    id += (byte & 0x7f) * scale;
    scale *= 128;
    if ((byte & 0x80) === 0) break;
  }
  const dictionary = dictionaries.get(id);
  if (id !== 0 && !dictionary)
    throw new Error(`a stored payload names dictionary ${id}, which the database does not hold`);
  return inflateRawSync(value.subarray(offset), {
    windowBits: WINDOW_BITS,
    ...(dictionary ? { dictionary } : {}),
  }).toString('utf8');
}
