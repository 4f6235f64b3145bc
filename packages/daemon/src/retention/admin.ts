import { formatBytes } from '@tapline/shared/lean';
import { ExitError } from '../exit-error.js';
import type { Clock } from '../clock.js';
import type { SqlDialect } from '../db/dialect.js';
import type { Db } from '../db/open.js';
import { parseRetentionDuration } from './parse-flags.js';
import { besideAnotherProcess } from './pace.js';
import type { Removed } from './prune.js';
import { storageOps } from './storage.js';
import { pruneBefore } from './sweep.js';
import { schemaOnFirstUse } from '../zod-on-first-use.js';

export interface PruneOptions {
  readonly olderThan?: string | undefined;
  readonly before?: string | undefined;
  readonly source?: string | undefined;
}

const isoTime = schemaOnFirstUse((z) => z.iso.datetime({ offset: true }).or(z.iso.date()));
const uuid = schemaOnFirstUse((z) => z.uuid());

/** The moment entries must be older than: `--older-than 7d` from now, or `--before` an ISO time. */
export async function pruneCutoff(clock: Clock, options: PruneOptions): Promise<string> {
  if ((options.olderThan === undefined) === (options.before === undefined))
    throw new ExitError('give one of --older-than DURATION or --before ISO-TIME', 2);
  if (options.olderThan !== undefined) {
    const ms = usage(() => parseRetentionDuration('--older-than', options.olderThan ?? '', false)) ?? 0;
    return new Date(clock.now().getTime() - ms).toISOString();
  }
  const text = options.before ?? '';
  if (!(await isoTime()).safeParse(text).success)
    throw new ExitError(
      `--before takes an ISO 8601 time such as 2026-11-01 or 2026-11-01T12:00:00Z (got "${text}")`,
      2,
    );
  return new Date(text).toISOString();
}

function usage<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new ExitError(error instanceof Error ? error.message : String(error), 2);
  }
}

/** `taplined prune`: on the database directly, also while a daemon runs on it. Returns the report. */
export async function pruneCommand(db: Db, dialect: SqlDialect, clock: Clock, options: PruneOptions): Promise<string> {
  const before = await pruneCutoff(clock, options);
  if (options.source !== undefined) {
    const id = (await uuid()).safeParse(options.source);
    if (!id.success) throw new ExitError('--source takes a traffic source id (a UUID)', 2);
    const found = await db.selectFrom('traffic_sources').select('id').where('id', '=', id.data).executeTakeFirst();
    if (!found) throw new ExitError(`no traffic source ${options.source}; see: tapline sources`);
  }
  const ops = storageOps(db, dialect);
  const sizeBefore = await ops.sizeBytes();
  // Another process (the daemon) may be writing to this database: leave it room between two
  // transactions (pace.ts).
  const pause = besideAnotherProcess(ops);
  const removed = await pruneBefore(db, dialect, before, { sourceId: options.source, pause });
  if (removed.entries > 0) await ops.reclaim(pause);
  const sizeAfter = await ops.sizeBytes();
  return `${describeRemoved(removed)} created before ${before}; database ${formatBytes(sizeBefore)} -> ${formatBytes(sizeAfter)}`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

export function describeRemoved(r: Removed): string {
  return `removed ${plural(r.entries, 'entry', 'entries')}, ${plural(r.coreLogs, 'core log')}, ${plural(r.deliveries, 'webhook delivery', 'webhook deliveries')}, ${plural(r.pathnames, 'pathname')}, ${plural(r.domains, 'domain')}`;
}
