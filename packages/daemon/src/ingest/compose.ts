import type { ComposeRecord, HttpTrafficRecord } from '@tapline/shared';
import type { Deps } from '../deps.js';
import { HttpError } from '../http/errors.js';
import type { RequestContext } from '../http/mount.js';
import { loadAuthorizedSource } from '../traffic-sources/load.js';
import type { Ingest } from './ingest.js';
import { prepareRecord, startedAtIssues } from './prepare.js';
import { createRedactor } from './redact.js';
import { toRecord } from '../http-traffic/repo.js';

/** One validated compose body, stored: what every single-record ingest path (compose, `/ingest-log`) shares. */
export type Composer = (ctx: RequestContext, body: ComposeRecord) => Promise<HttpTrafficRecord>;

/**
 * The rest of a compose once its body passed the schema: the `startedAt` rule (a 400, so before
 * the 404), the source's 404 and 403, redaction, the group commit, and the 201 record.
 */
export function createComposer(deps: Deps, ingest: Ingest): Composer {
  const redactor = createRedactor(deps.config.redact);
  return async (ctx, body) => {
    const ahead = startedAtIssues([body], deps.clock.now().getTime(), () => '');
    if (ahead.length > 0) throw new HttpError(400, 'validation_failed', ahead[0]?.message ?? '', ahead);
    const source = await loadAuthorizedSource(deps, ctx, body.trafficSourceId);
    const { record, shown } = prepareRecord(body, redactor);
    const [entry] = await ingest.store(source, [record]);
    if (!entry) throw new Error('compose stored no record');
    return toRecord(entry, shown);
  };
}
