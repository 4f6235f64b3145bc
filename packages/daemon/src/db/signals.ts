import { EventEmitter } from 'node:events';

/**
 * Wake-ups between daemons that share a database. They carry no data a reader depends on: what
 * changed is always read from the tables, so a lost signal only delays (the readers also look
 * again on a timer). One daemon on SQLite signals only itself.
 */
export type SignalChannel = 'traffic' | 'outbox' | 'webhook_deleted';

export interface ClusterSignals {
  /** Tells the other daemons on the database (not this one), after the change committed. */
  notify(channel: SignalChannel, payload?: string): void;
  /**
   * Hears the other daemons' signals; `payload` is `''` after the listening connection was lost
   * and came back, when signals may have been missed: listeners catch up from the tables then.
   */
  listen(channel: SignalChannel, listener: (payload: string) => void): () => void;
  close(): Promise<void>;
}

/** SQLite: one daemon per database file, so there is nobody else to tell. */
export function localSignals(): ClusterSignals {
  return {
    notify: () => undefined,
    listen: () => () => undefined,
    close: () => Promise.resolve(),
  };
}

/** The listeners of each channel, for a signals implementation to hand what it hears to. */
export function signalListeners() {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    add(channel: SignalChannel, listener: (payload: string) => void): () => void {
      emitter.on(channel, listener);
      return () => emitter.off(channel, listener);
    },
    emit: (channel: SignalChannel, payload: string) => emitter.emit(channel, payload),
    channels: (): SignalChannel[] => ['traffic', 'outbox', 'webhook_deleted'],
  };
}
