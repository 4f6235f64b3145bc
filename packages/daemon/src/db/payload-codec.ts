import { type Kysely, sql, type Transaction } from 'kysely';
import { RawInflater } from './inflate.js';
import type { DB } from './schema.js';
import {
  decodePayload,
  DICTIONARY_BYTES,
  encodePayload,
  type PayloadDictionary,
  RAW_BELOW,
  type StoredPayload,
  trainDictionary,
} from './payload.js';

/** db/types.ts's Executor, spelled here: that module needs the dialect, which holds a codec. */
type Executor = Kysely<DB> | Transaction<DB>;

/**
 * How one database stores payload values (header sets, bodies, the query): compressed with a
 * dictionary trained per source on SQLite, JSON text as it is on PostgreSQL (docs/storage.md,
 * "Compact storage"). One codec per opened database: its dictionaries and training state live
 * and die with the connection.
 */
export interface PayloadCodec {
  readonly compresses: boolean;
  /**
   * The stored form of one source's new texts, written in `trx`. `texts` are what this write
   * stores: they feed the training of the source's dictionary, which is written in `trx` too.
   */
  encoder(trx: Executor, sourceId: string, texts: readonly string[]): Promise<(text: string) => StoredPayload>;
  /** A stored value back to its JSON text (on SQLite, the SQL function `tapline_text`). */
  decode(value: StoredPayload): string;
  /** A dictionary this connection wrote (a migration's, the encoder's), usable at once. */
  remember(dictionary: PayloadDictionary): void;
  /** Reads every dictionary of `db` (after a migration or a copy wrote them by SQL). */
  load(db: Executor): Promise<void>;
}

export const plainPayloads: PayloadCodec = {
  compresses: false,
  encoder: () => Promise.resolve((text) => text),
  decode: (value) => (typeof value === 'string' ? value : Buffer.from(value).toString('utf8')),
  remember: () => undefined,
  load: () => Promise.resolve(),
};

/** Texts gathered before a source's first dictionary is trained (~6 realistic records): early records gain at once. */
const FIRST_TRAINING_BYTES = DICTIONARY_BYTES;
/**
 * A dictionary is trained again after this many values, so it follows the app's traffic as it
 * changes; one that did not fill the window (a first one) after far fewer, from a full sample.
 */
const RETRAIN_AFTER_VALUES = 100_000;
const RETRAIN_SMALL_AFTER_VALUES = 1_000;
/** Sources whose training state is kept; past it the state is forgotten and read again. */
const MAX_SOURCES = 10_000;

interface SourceState {
  current: PayloadDictionary | undefined;
  /** Written by this codec in a transaction not known to have committed yet. */
  unconfirmed: boolean;
  encoded: number;
  samples: string[];
  sampleBytes: number;
}

/** Whether `dictionary` holds each of `texts` whole, as a dictionary trained on them would. */
function holdsEvery(dictionary: Uint8Array, texts: readonly string[]): boolean {
  const bytes = Buffer.from(dictionary.buffer, dictionary.byteOffset, dictionary.byteLength);
  return texts.every((text) => bytes.includes(text));
}

/**
 * The SQLite codec. `load` reads a dictionary this connection has not seen (written by another
 * process, or before this one opened); it must not use this connection, which is busy running
 * the statement that asked (the decoder is called from SQL).
 */
export function compressingPayloads(load: (id: number) => Uint8Array | undefined): PayloadCodec {
  const dictionaries = new Map<number, Uint8Array>();
  const sources = new Map<string, SourceState>();
  const inflater = new RawInflater();

  function dictionary(id: number): Uint8Array {
    let data = dictionaries.get(id);
    if (!data) {
      data = load(id);
      if (!data) throw new Error(`payload dictionary ${id} is missing`);
      dictionaries.set(id, data);
    }
    return data;
  }

  async function stateOf(trx: Executor, sourceId: string): Promise<SourceState> {
    let state = sources.get(sourceId);
    if (state?.unconfirmed && state.current) {
      // The transaction that wrote it has ended: kept only if it committed.
      const row = await trx
        .selectFrom('payload_dictionaries')
        .select('data')
        .where('id', '=', state.current.id)
        .executeTakeFirst();
      if (!row || !Buffer.from(row.data).equals(state.current.data)) state.current = undefined;
      state.unconfirmed = false;
    }
    if (state) return state;
    if (sources.size >= MAX_SOURCES) sources.clear();
    const row = await trx
      .selectFrom('payload_dictionaries')
      .select(['id', 'data'])
      .where('traffic_source_id', '=', sourceId)
      .orderBy('id', 'desc')
      .executeTakeFirst();
    state = {
      current: row && { id: row.id, data: row.data },
      unconfirmed: false,
      encoded: 0,
      samples: [],
      sampleBytes: 0,
    };
    if (row) dictionaries.set(row.id, row.data);
    sources.set(sourceId, state);
    return state;
  }

  async function train(trx: Executor, sourceId: string, state: SourceState): Promise<void> {
    if (state.current && holdsEvery(state.current.data, state.samples)) {
      // Nothing to follow: the traffic repeats what the dictionary in use holds (a health check, a
      // poll). Writing the same texts again as a new dictionary put an 8 KiB row in the database
      // and a buffer in this map every 1,000 values, for good (docs/performance.md, "Memory: a
      // dictionary a thousand values").
      Object.assign(state, { encoded: 0, samples: [], sampleBytes: 0 });
      return;
    }
    const data = trainDictionary(state.samples);
    const { rows } = await sql<{
      id: number | string;
    }>`select coalesce(max(id), 0) + 1 as id from payload_dictionaries`.execute(trx);
    const id = Number(rows[0]?.id ?? 1);
    await trx
      .insertInto('payload_dictionaries')
      .values({ id, traffic_source_id: sourceId, data, created_at: new Date().toISOString() })
      .execute();
    dictionaries.set(id, data);
    Object.assign(state, { current: { id, data }, unconfirmed: true, encoded: 0, samples: [], sampleBytes: 0 });
  }

  return {
    compresses: true,
    async encoder(trx, sourceId, texts) {
      const state = await stateOf(trx, sourceId);
      const retrainAfter =
        state.current && state.current.data.length < DICTIONARY_BYTES
          ? RETRAIN_SMALL_AFTER_VALUES
          : RETRAIN_AFTER_VALUES;
      const due = state.current === undefined || state.encoded >= retrainAfter;
      if (due) {
        for (const text of texts) {
          if (text.length < RAW_BELOW) continue;
          state.samples.push(text);
          state.sampleBytes += text.length;
        }
        // Keep the most recent texts only: twice the window leaves room for repeated ones.
        while (state.sampleBytes > 2 * DICTIONARY_BYTES && state.samples.length > 1)
          state.sampleBytes -= state.samples.shift()?.length ?? 0;
        if (state.sampleBytes >= (state.current ? DICTIONARY_BYTES : FIRST_TRAINING_BYTES))
          await train(trx, sourceId, state);
      }
      state.encoded += texts.length;
      const current = state.current;
      return (text) => encodePayload(text, current);
    },
    decode: (value) => decodePayload(value, dictionary, inflater),
    remember(d) {
      dictionaries.set(d.id, d.data);
    },
    async load(db) {
      for (const d of await db.selectFrom('payload_dictionaries').select(['id', 'data']).execute())
        dictionaries.set(d.id, d.data);
    },
  };
}
