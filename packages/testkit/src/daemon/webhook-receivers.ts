import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, contract, type TaplineClient } from '@tapline/shared';
import pino from 'pino';
import {
  type AlertEvaluator,
  type App,
  type Clock,
  createApp,
  createUser,
  type Db,
  defaultConfig,
  listen,
  openDatabase,
  type Store,
  type WebhookWorker,
} from '@tapline/daemon';
import { composeBody } from '../compose.js';
import { openTestDatabase } from './database.js';

export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The raw body, exactly as sent (signatures are checked over these bytes). */
  readonly body: string;
  json<T = Record<string, unknown>>(): T;
}

export interface Answer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** Never answer: for time-out and cancel tests. */
  readonly hang?: boolean;
}

/** A fake Discord, Slack or HTTP receiver on loopback that records what reaches it. */
export interface Receiver {
  readonly url: string;
  readonly requests: ReceivedRequest[];
  /** Answers given in turn; the last one repeats. Default: 204. */
  answer(...answers: Answer[]): void;
  /** Resolves when `n` requests have arrived in total. */
  waitFor(n: number): Promise<void>;
  /** Requests whose connection the sender closed before the answer. */
  readonly aborted: number;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  let answers: Answer[] = [{ status: 204 }];
  let aborted = 0;
  const waiters: { n: number; resolve: () => void }[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        json: <T>() => JSON.parse(body) as T,
      });
      for (const w of waiters.filter((w) => requests.length >= w.n)) w.resolve();
      const answer = answers.length > 1 ? (answers.shift() as Answer) : (answers[0] as Answer);
      if (answer.hang) {
        hanging.add(res);
        res.on('close', () => {
          if (!res.writableEnded) aborted += 1;
        });
        return;
      }
      res.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? '');
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return {
    url,
    requests,
    answer: (...next) => {
      answers = next;
    },
    waitFor: (n) => (requests.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    get aborted() {
      return aborted;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface WebhookApp {
  readonly url: string;
  readonly worker: WebhookWorker;
  /** The alert evaluator, not started: tests move the clock and call `alerts.runDue()`. */
  readonly alerts: AlertEvaluator;
  /** The route rule move, started by a rule change; `runNow()` waits until none is left. */
  readonly routeReassignment: App['routeReassignment'];
  readonly client: TaplineClient;
  readonly db: Db;
  /** The database with its dialect, for calling repository functions as another daemon would. */
  readonly store: Store;
  /** A second user, for 403 checks. */
  stranger(): Promise<TaplineClient>;
  /** Creates a traffic source of the user; returns its id. */
  source(name?: string): Promise<string>;
  compose(sourceId: string, overrides?: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

/**
 * The app in-process with its webhook worker not started: tests move the clock and call
 * `worker.runDue()` to deliver, so retries and windows are checked without sleeping.
 */
export async function startWebhookApp(options: {
  clock: Clock;
  random?: () => number;
  timeoutMs?: number;
  /** Another app's database (a `freshDatabase` locator), as a second daemon on it; left in place at close. */
  database?: string;
  /** Names this app's alert claims (a daemon's). */
  owner?: string;
  /** The worker starts by itself this many ms after the app is made, as in a daemon (createApp's `jobsAfterMs`). */
  jobsAfterMs?: number;
}): Promise<WebhookApp> {
  const opened =
    options.database === undefined ? await openTestDatabase() : openDatabase(options.database, { pool: 4 });
  const { app, deps, webhooks, alerts, routeReassignment, stop } = createApp({
    db: opened.db,
    dialect: opened.dialect,
    config: { ...defaultConfig('0.0.0-test'), allowPrivateWebhooks: true },
    logger: pino({ level: 'silent' }),
    clock: options.clock,
    webhooks: {
      start: options.jobsAfterMs !== undefined,
      random: options.random ?? (() => 1),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    },
    alerts: { start: false, ...(options.owner ? { owner: options.owner } : {}) },
    ...(options.jobsAfterMs === undefined ? {} : { jobsAfterMs: options.jobsAfterMs }),
  });
  const server = await listen(app, 0, '127.0.0.1', deps.logger);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let users = 0;
  const clientFor = async () => {
    const user = await createUser(opened.db, deps.clock, {
      email: `webhooks${++users}.${randomUUID().slice(0, 8)}@example.com`,
    });
    const issued = await deps.tokens.issue({ userId: user.id, scope: 'full', sourceId: null, expiresAt: null });
    return createClient({ baseUrl: url, token: issued.token });
  };
  const client = await clientFor();
  return {
    url,
    worker: webhooks,
    alerts,
    routeReassignment,
    client,
    db: opened.db,
    store: opened,
    stranger: clientFor,
    async source(name = 'shop') {
      return (await client.call(contract.createTrafficSource, { body: { name, trafficDomain: 'shop.example.com' } }))
        .id;
    },
    async compose(sourceId, overrides = {}) {
      await client.call(contract.composeRecord, {
        params: { trafficSourceId: sourceId },
        body: composeBody(sourceId, overrides),
      });
    },
    async close() {
      await stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await opened.close();
    },
  };
}
