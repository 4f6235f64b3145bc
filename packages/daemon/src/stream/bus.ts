import { EventEmitter } from 'node:events';
import type { HttpTraffic } from '@tapline/shared';
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.js';
import type { Sequenced } from './stream-repo.js';

/** A stored entry as the list shows it, with the source's owner for listeners that need it. */
export type StoredEntry = HttpTraffic;

/**
 * Runs inside the transaction that stores entries, so whatever it writes (an outbox row) is
 * committed with them or not at all.
 */
export type IngestHook = (trx: Transaction<DB>, entries: readonly StoredEntry[]) => Promise<void>;

/**
 * Tells in-process listeners (streams, the webhook worker) about entries after they commit, in
 * commit order, each with its stream number (docs/decisions.md §9.7).
 */
export interface TrafficBus {
  publish(committed: readonly Sequenced[]): void;
  subscribe(listener: (committed: readonly Sequenced[]) => void): () => void;
}

export function createTrafficBus(): TrafficBus {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    publish: (committed) => {
      if (committed.length > 0) emitter.emit('entries', committed);
    },
    subscribe(listener) {
      emitter.on('entries', listener);
      return () => emitter.off('entries', listener);
    },
  };
}
