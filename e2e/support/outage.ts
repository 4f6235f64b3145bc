import { composeBody } from '@tapline/testkit';

/** One compose sent while the database may be down, and what came back. */
export interface Outcome {
  readonly daemon: string;
  /** When the answer came (Date.now()). */
  readonly at: number;
  /** The HTTP status, or `reset` when no answer was read (a reset, a refused or dropped connection). */
  readonly status: number | 'reset';
  readonly retryAfter: string | null;
  /** The entry's id, on a 201. */
  readonly id?: string;
  /** The error body's code, or the network error, otherwise. */
  readonly detail?: string;
}

export interface Target {
  readonly name: string;
  readonly url: string;
  readonly token: string;
  readonly sourceId: string;
}

/** A compose the way an instrumented app sends one, with whatever came back; never throws. */
export async function composeOnce(target: Target, n: number): Promise<Outcome> {
  const base = { daemon: target.name };
  try {
    const response = await fetch(`${target.url}/http-traffic-record/${target.sourceId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(composeBody(target.sourceId, { pathnameUrl: `/${target.name}/${n}`, elapsedTime: 3 })),
      signal: AbortSignal.timeout(30_000),
    });
    const body = (await response.json()) as { id?: string; code?: string };
    const answer = {
      ...base,
      at: Date.now(),
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
    };
    return response.status === 201 ? { ...answer, id: body.id ?? '' } : { ...answer, detail: body.code ?? '' };
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
    return { ...base, at: Date.now(), status: 'reset', retryAfter: null, detail: cause };
  }
}

/**
 * Composes to `target` back to back until `signal` aborts, each answer recorded in `outcomes`.
 * After a refusal it waits a moment (a client honouring Retry-After waits longer), so that an
 * outage is a few hundred refusals, not a busy loop.
 */
export async function composeUntil(target: Target, signal: AbortSignal, outcomes: Outcome[]): Promise<void> {
  for (let n = 0; !signal.aborted; n++) {
    const outcome = await composeOnce(target, n);
    outcomes.push(outcome);
    if (outcome.status !== 201) await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Refusals that are not the retryable 503 with `Retry-After`, as `daemon status detail` lines. */
export function badRefusals(outcomes: readonly Outcome[]): string[] {
  return outcomes
    .filter((o) => o.status !== 201 && !(o.status === 503 && o.retryAfter !== null))
    .map((o) => `${o.daemon} ${o.status} ${o.detail ?? ''}`);
}

/** Every entry stored in a source (its id and path), read page by page through the list. */
export async function storedEntries(
  url: string,
  token: string,
  sourceId: string,
): Promise<Array<{ id: string; pathname: string }>> {
  const entries: Array<{ id: string; pathname: string }> = [];
  for (let page = 1; ; page++) {
    const response = await fetch(`${url}/http-traffic/${sourceId}?limit=1000&page=${page}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (response.status !== 200) throw new Error(`listing answered ${response.status}: ${await response.text()}`);
    const { data, meta } = (await response.json()) as {
      data: Array<{ id: string; pathname: string }>;
      meta: { total: number };
    };
    entries.push(...data.map(({ id, pathname }) => ({ id, pathname })));
    if (data.length === 0 || entries.length >= meta.total) return entries;
  }
}

export const storedIds = async (url: string, token: string, sourceId: string) =>
  new Set((await storedEntries(url, token, sourceId)).map((e) => e.id));

/** Lines of a daemon's log that carry a stack trace (`    at f (file:line)`). */
export const stackTraces = (log: string) => log.split('\n').filter((line) => /^\s+at\s|\\n\s+at\s/.test(line));

/** Polls `check` every 50 ms until it is true or `timeoutMs` passes; resolves to whether it became true. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/** The log lines a daemon wrote about the database being unavailable (db/unavailable.ts). */
export const outageLines = (log: string) =>
  log.split('\n').filter((line) => line.includes('"event":"database_unavailable"'));
