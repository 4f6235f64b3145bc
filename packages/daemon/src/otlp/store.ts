import type { TrafficSource } from '@tapline/shared';
import { createCoreLog } from '../core-logs/repo.js';
import type { Deps } from '../deps.js';
import type { Ingest } from '../ingest/ingest.js';
import { type PreparedRecord, prepareRecord, startedAtIssues } from '../ingest/prepare.js';
import type { Redactor } from '../ingest/redact.js';
import { schemas } from '../http/schemas.js';
import type { SpanException, SpanRecord, Translation } from './translate.js';

/** Spans of one source, as translate() gave them. */
export interface SourceGroup {
  readonly source: TrafficSource;
  readonly records: readonly SpanRecord[];
  readonly unlinked: readonly { readonly serviceName: string; readonly exception: SpanException }[];
}

export interface Stored {
  readonly accepted: number;
  readonly rejected: Translation['rejected'];
}

/** Why a record failed the compose rules, the way a 400 would say it. */
const firstIssue = (issues: readonly { path: readonly PropertyKey[] | string; message: string }[]) =>
  issues[0]
    ? `${Array.isArray(issues[0].path) ? issues[0].path.join('.') : String(issues[0].path)}: ${issues[0].message}`
    : 'invalid';

/**
 * Each span's record goes through the compose schema, the `startedAt` rule and redaction exactly
 * as a compose does; one that fails is rejected alone (OTLP's partial success), never the export.
 * A source's records are stored in one group commit; then the core logs, linked to their entries.
 */
export async function storeGroup(deps: Deps, ingest: Ingest, redactor: Redactor, group: SourceGroup): Promise<Stored> {
  const rejected: { count: number; reasons: string[] } = { count: 0, reasons: [] };
  const reject = (reason: string) => {
    rejected.count += 1;
    if (rejected.reasons.length < 3) rejected.reasons.push(reason);
  };
  const kept: { record: PreparedRecord; exceptions: readonly SpanException[]; serviceName: string }[] = [];
  const now = deps.clock.now().getTime();
  const { ComposeRecord } = await schemas();
  for (const span of group.records) {
    const parsed = ComposeRecord.safeParse({ ...span.body, trafficSourceId: group.source.id });
    if (!parsed.success) {
      reject(firstIssue(parsed.error.issues));
      continue;
    }
    const ahead = startedAtIssues([parsed.data], now, () => '');
    if (ahead[0]) {
      reject(`span start: ${ahead[0].message}`);
      continue;
    }
    kept.push({
      record: prepareRecord(parsed.data, redactor).record,
      exceptions: span.exceptions,
      serviceName: span.serviceName,
    });
  }
  const entries =
    kept.length > 0
      ? await ingest.store(
          group.source,
          kept.map((k) => k.record),
        )
      : [];
  const logs = kept.flatMap((k, i) =>
    k.exceptions.map((exception) => ({ exception, serviceName: k.serviceName, httpTrafficId: entries[i]?.id ?? null })),
  );
  for (const { exception, serviceName, httpTrafficId } of [
    ...logs,
    ...group.unlinked.map((u) => ({ ...u, httpTrafficId: null })),
  ]) {
    await createCoreLog(deps.db, deps.clock, group.source.id, {
      ...exception,
      source: serviceName,
      layer: 'Application',
      httpTrafficId,
    });
  }
  return { accepted: entries.length, rejected };
}
