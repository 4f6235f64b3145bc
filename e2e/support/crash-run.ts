import { join } from 'node:path';
import Database from 'better-sqlite3';
import { execa } from 'execa';
import { cleanEnv, startDaemon, TAPLINED, type SpawnedDaemon } from './binaries.js';
import { createSource } from './compose.js';
import { composeBody } from '@tapline/testkit';

/**
 * Clients ingest singles and batches (some large enough for the worker thread) while the daemon
 * is SIGKILLed again and again, once during its start-up too; then every acknowledged record is
 * looked for. Each record carries a unique path, so loss, duplication and half-stored batches all
 * show: `/crash/<client>/<op>` for a single, `/crash/<client>/<op>/<item>` for a batch item.
 */
export interface CrashPlan {
  readonly clients: number;
  /** SIGKILLs while clients are ingesting; one more happens during a start-up. */
  readonly kills: number;
  /** Acknowledged records between two kills. */
  readonly acksPerRound: number;
}

export interface CrashReport {
  readonly acknowledged: number;
  readonly stored: number;
  readonly lost: readonly string[];
  readonly duplicated: readonly string[];
  readonly partialBatches: readonly string[];
  readonly changed: readonly string[];
  readonly integrity: string;
  readonly kills: number;
  /**
   * The route statistics (issue 26) of the last day, route by route and method by method, as
   * `GET /stats` gives them and as the stored entries count: equal when the numbers were
   * committed with exactly the entries they count.
   */
  readonly statistics: {
    readonly fromStats: readonly string[];
    readonly fromEntries: readonly string[];
    readonly p99s: readonly number[];
  };
  /** Core logs, accounted the same way by their unique titles. */
  readonly coreLogs: {
    readonly acknowledged: number;
    readonly stored: number;
    readonly lost: readonly string[];
    readonly duplicated: readonly string[];
    readonly changed: readonly string[];
  };
}

const BATCH = 20;
/** About 4 KiB per item: a batch of 20 is past the 64 KiB at which the worker thread prepares it. */
const PADDING = 'x'.repeat(4096);

interface Live {
  daemon: SpawnedDaemon;
  /** Resolves when the daemon is up again; clients wait on it after a failed request. */
  up: Promise<void>;
}

export async function crashRun(home: string, plan: CrashPlan): Promise<CrashReport> {
  let daemon = await startDaemon(home);
  const port = new URL(daemon.url).port;
  const token = daemon.token;
  const sourceId = await createSource(daemon.url, token, 'crash');
  const acked = new Map<string, string>();
  const ackedLogs = new Map<string, string>();
  let ackListener: (() => void) | undefined;
  const live: Live = { daemon, up: Promise.resolve() };
  let stopping = false;

  const post = async (path: string, body: unknown): Promise<unknown> => {
    const response = await fetch(`${live.daemon.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status !== 201) throw new Error(`answered ${response.status}`);
    return response.json();
  };

  async function client(name: number): Promise<void> {
    for (let op = 0; !stopping; op++) {
      try {
        if (op % 4 === 1) {
          const { data } = (await post(`/core-log/${sourceId}`, {
            title: `/crash/${name}/${op}`,
            source: 'crash',
            stack: PADDING.slice(0, 512),
          })) as { data: { id: string } };
          ackedLogs.set(data.id, `/crash/${name}/${op}`);
        } else if (op % 3 === 2) {
          const large = op % 2 === 0;
          const items = Array.from({ length: BATCH }, (_, i) =>
            composeBody(sourceId, {
              pathnameUrl: `/crash/${name}/${op}/${i}`,
              elapsedTime: 1,
              ...(large ? { requestBody: { padding: PADDING } } : {}),
            }),
          );
          const { ids } = (await post(`/http-traffic-record/${sourceId}/batch`, items)) as { ids: string[] };
          ids.forEach((id, i) => acked.set(id, `/crash/${name}/${op}/${i}`));
        } else {
          const { id } = (await post(
            `/http-traffic-record/${sourceId}`,
            composeBody(sourceId, { pathnameUrl: `/crash/${name}/${op}`, elapsedTime: 1 }),
          )) as { id: string };
          acked.set(id, `/crash/${name}/${op}`);
        }
        ackListener?.();
      } catch {
        // Killed mid-request: this record's fate is unknown, so it is not counted; wait for the restart.
        await live.up;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }

  const acksReach = (count: number) =>
    new Promise<void>((resolve) => {
      ackListener = () => {
        if (acked.size < count) return;
        ackListener = undefined;
        resolve();
      };
      ackListener();
    });

  const clients = Array.from({ length: plan.clients }, (_, i) => client(i));
  for (let kill = 1; kill <= plan.kills; kill++) {
    await acksReach(kill * plan.acksPerRound);
    let restarted!: () => void;
    live.up = new Promise<void>((resolve) => (restarted = resolve));
    await daemon.kill();
    if (kill === 1) await killDuringStartup(home, port);
    daemon = await startDaemon(home, ['--port', port]);
    live.daemon = daemon;
    restarted();
  }
  await acksReach((plan.kills + 1) * plan.acksPerRound);
  stopping = true;
  await Promise.all(clients);
  const stored = await storedPaths(daemon.url, token, sourceId);
  const logs = await storedCoreLogs(daemon.url, token, sourceId);
  const statistics = await statisticsOf(daemon.url, token, sourceId);
  await daemon.stop();
  const db = new Database(join(home, 'tapline.db'), { readonly: true });
  const integrity = (db.pragma('integrity_check', { simple: true }) as string) ?? '';
  db.close();
  const { lost: lostLogs, duplicated: duplicatedLogs, changed: changedLogs } = compare(ackedLogs, logs);
  const coreLogs = {
    acknowledged: ackedLogs.size,
    stored: logs.length,
    lost: lostLogs,
    duplicated: duplicatedLogs,
    changed: changedLogs,
  };
  return {
    ...compare(acked, stored),
    acknowledged: acked.size,
    stored: stored.length,
    integrity,
    kills: plan.kills + 1,
    coreLogs,
    statistics,
  };
}

/**
 * A daemon killed while it starts (loading, opening the database, replaying its WAL, migrating)
 * must leave the database usable. Start-up has no outside signal before the `listening` line, so
 * the moment is a random one within the first 400 ms: a deliberate point in time, not a wait.
 */
async function killDuringStartup(home: string, port: string): Promise<void> {
  const child = execa('node', [TAPLINED, '--port', port, '--home', home, '--log-level', 'warn'], {
    env: cleanEnv(),
    extendEnv: false,
    reject: false,
  });
  await new Promise((resolve) => setTimeout(resolve, 50 + Math.floor(Math.random() * 350)));
  child.kill('SIGKILL');
  await child;
}

/** Every item of a paginated list, a thousand at a time. */
async function listAll<T>(url: string, token: string, path: string): Promise<T[]> {
  const all: T[] = [];
  for (let page = 1; ; page++) {
    const response = await fetch(`${url}${path}?limit=1000&page=${page}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const { data } = (await response.json()) as { data: T[] };
    all.push(...data);
    if (data.length < 1000) return all;
  }
}

async function storedPaths(
  url: string,
  token: string,
  sourceId: string,
): Promise<Array<{ id: string; pathname: string }>> {
  const entries = await listAll<{ id: string; pathname: string }>(url, token, `/http-traffic/${sourceId}`);
  return entries.map(({ id, pathname }) => ({ id, pathname }));
}

/** `route method count` per group, from the statistics and from the stored entries, and each group's p99 (every latency is 1 ms). */
async function statisticsOf(url: string, token: string, sourceId: string): Promise<CrashReport['statistics']> {
  const entries = await listAll<{ route: string; method: string; elapsedTime: number }>(
    url,
    token,
    `/http-traffic/${sourceId}`,
  );
  const counts = new Map<string, number>();
  for (const e of entries) counts.set(`${e.route} ${e.method}`, (counts.get(`${e.route} ${e.method}`) ?? 0) + 1);
  const response = await fetch(`${url}/stats/${sourceId}?since=1d&by=route,method`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const { data } = (await response.json()) as {
    data: Array<{ route: string; method: string; count: number; p99: number }>;
  };
  return {
    fromStats: data.map((g) => `${g.route} ${g.method} ${g.count}`).sort(),
    fromEntries: [...counts].map(([key, n]) => `${key} ${n}`).sort(),
    p99s: data.map((g) => g.p99),
  };
}

/** Core logs as `compare` takes them: the title stands for the path. */
async function storedCoreLogs(
  url: string,
  token: string,
  sourceId: string,
): Promise<Array<{ id: string; pathname: string }>> {
  const logs = await listAll<{ id: string; title: string }>(url, token, `/core-log/${sourceId}`);
  return logs.map(({ id, title }) => ({ id, pathname: title }));
}

function compare(acked: ReadonlyMap<string, string>, stored: ReadonlyArray<{ id: string; pathname: string }>) {
  const byId = new Map(stored.map((s) => [s.id, s.pathname]));
  const lost = [...acked.keys()].filter((id) => !byId.has(id));
  const changed = [...acked].filter(([id, path]) => byId.has(id) && byId.get(id) !== path).map(([id]) => id);
  const seen = new Map<string, number>();
  for (const { pathname } of stored) seen.set(pathname, (seen.get(pathname) ?? 0) + 1);
  const duplicated = [...seen].filter(([, n]) => n > 1).map(([path]) => path);
  const batches = new Map<string, number>();
  for (const { pathname } of stored) {
    const batch = /^(\/crash\/\d+\/\d+)\/\d+$/.exec(pathname)?.[1];
    if (batch) batches.set(batch, (batches.get(batch) ?? 0) + 1);
  }
  const partialBatches = [...batches].filter(([, n]) => n !== BATCH).map(([batch]) => batch);
  return { lost, changed, duplicated, partialBatches };
}
