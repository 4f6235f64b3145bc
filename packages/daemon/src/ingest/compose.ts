import type { ComposeRecord, HttpTrafficRecord, TrafficSource } from '@tapline/shared';
import type { Deps } from '../deps.js';
import { HttpError } from '../http/errors.js';
import type { Ingest } from './ingest.js';
import { prepareRecord, startedAtIssues } from './prepare.js';
import { createRedactor } from './redact.js';
import { toRecord } from '../http-traffic/repo.js';

/**
 * One validated compose body, stored: what every single-record ingest path (compose, `/ingest-log`)
 * shares, in two halves around the source's 404 and 403, which `mount` runs (the endpoint's `access`).
 */
export interface Composer {
  /** The `startedAt` rule: a 400, so a route's `validate`, before the source's 404 and 403. */
  readonly check: (body: ComposeRecord) => void;
  /** Redaction, the group commit, and the 201 record. */
  readonly store: (source: TrafficSource, body: ComposeRecord) => Promise<HttpTrafficRecord>;
}

export function createComposer(deps: Deps, ingest: Ingest): Composer {
  const redactor = createRedactor(deps.config.redact);
  const check = (body: ComposeRecord) => {
    const ahead = startedAtIssues([body], deps.clock.now().getTime(), () => '');
    if (ahead.length > 0) throw new HttpError(400, 'validation_failed', ahead[0]?.message ?? '', ahead);
  };
  const store = async (source: TrafficSource, body: ComposeRecord) => {
    const { record, shown } = prepareRecord(body, redactor);
    const [entry] = await ingest.store(source, [record]);
    if (!entry) throw new Error('compose stored no record');
    return toRecord(entry, shown);
  };
  return { check, store };
}
