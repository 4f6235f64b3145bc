import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';
import type { ClusterSignals } from './signals.js';
import { causeOf } from './unavailable.js';
import { signalListeners } from './signals.js';
import { listenToEveryClient } from './pg-clients.js';

const PREFIX = 'tapline_';
/** Reconnect schedule of the listening connection: quick at first, then at most every 5 s. */
const RETRY_MS = [100, 250, 500, 1_000, 2_000, 5_000];

/**
 * PostgreSQL LISTEN/NOTIFY between the daemons of one database. Each daemon keeps one dedicated
 * connection that listens (a pooled connection cannot: LISTEN belongs to a session), and
 * reconnects when it is lost, then tells its listeners to catch up. NOTIFY goes out through the
 * pool after the change committed. A payload starts with the sender's instance id, so a daemon
 * ignores its own signals (it already told itself, in process).
 */
export function postgresSignals(connectionString: string, logger: Logger): ClusterSignals {
  const instance = randomUUID();
  const listeners = signalListeners();
  const notifier = new pg.Pool({ connectionString, max: 1 });
  // Its failures are the signals' (below): a lost signal only delays the others.
  listenToEveryClient(notifier);
  let client: pg.Client | undefined;
  let closed = false;
  const sending = new Map<string, { again: boolean }>();
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;

  function heard(message: pg.Notification): void {
    const channel = listeners.channels().find((c) => `${PREFIX}${c}` === message.channel);
    const [sender = '', ...rest] = (message.payload ?? '').split(' ');
    if (channel && sender !== instance) listeners.emit(channel, rest.join(' '));
  }

  async function connect(): Promise<void> {
    if (closed) return;
    const next = new pg.Client({ connectionString });
    const lost = () => {
      if (client !== next) return;
      client = undefined;
      next.removeAllListeners('notification');
      void next.end().catch(() => undefined);
      reconnectLater();
    };
    next.on('error', (error) => {
      logger.warn({ err: causeOf(error) }, 'the listening connection to PostgreSQL failed; reconnecting');
      lost();
    });
    next.on('end', lost);
    next.on('notification', heard);
    try {
      await next.connect();
      for (const channel of listeners.channels()) await next.query(`LISTEN ${PREFIX}${channel}`);
    } catch (error) {
      next.removeAllListeners();
      next.on('error', () => undefined);
      void next.end().catch(() => undefined);
      // Once per outage, not once per attempt: the attempts go on every few seconds until it ends.
      if (failures === 0)
        logger.warn({ err: causeOf(error) }, 'could not listen on PostgreSQL; retrying until it answers');
      return reconnectLater();
    }
    if (closed) return void next.end().catch(() => undefined);
    client = next;
    // Whatever was signalled while no connection listened is in the tables: catch up now.
    if (failures > 0) {
      logger.info({ attempts: failures }, 'listening on PostgreSQL again');
      for (const channel of listeners.channels()) listeners.emit(channel, '');
    }
    failures = 0;
  }

  function reconnectLater(): void {
    if (closed) return;
    const delay = RETRY_MS[Math.min(failures, RETRY_MS.length - 1)] ?? 5_000;
    failures++;
    clearTimeout(timer);
    timer = setTimeout(() => void connect(), delay);
    timer.unref();
  }

  const ready = connect();
  return {
    notify(channel, payload = '') {
      // Under load commits come faster than round trips: while one signal is on its way, the same
      // signal asked again is sent once more after it, not once per commit.
      const key = `${channel} ${payload}`;
      const state = sending.get(key);
      if (state) return void (state.again = true);
      const entry = { again: false };
      sending.set(key, entry);
      const send = (): void => {
        entry.again = false;
        notifier
          .query('select pg_notify($1, $2)', [`${PREFIX}${channel}`, `${instance} ${payload}`])
          .catch((error: unknown) => {
            // A lost signal only delays the others: they also look on a timer.
            logger.debug(
              { err: error instanceof Error ? error.message : String(error), channel },
              'could not signal the other daemons',
            );
          })
          .finally(() => (entry.again && !closed ? send() : sending.delete(key)));
      };
      send();
    },
    listen: (channel, listener) => listeners.add(channel, listener),
    async close() {
      closed = true;
      clearTimeout(timer);
      await ready;
      const last = client;
      client = undefined;
      await last?.end().catch(() => undefined);
      await notifier.end().catch(() => undefined);
    },
  };
}
