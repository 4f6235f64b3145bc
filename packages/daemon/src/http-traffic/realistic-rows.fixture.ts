import { ComposeRecord } from '@tapline/shared';
import { realisticRecord } from '@tapline/testkit';
import { prepareRecord } from '../ingest/prepare.js';
import { createRedactor } from '../ingest/redact.js';
import { rowsOf } from '../ingest/rows.js';
import type { NewTrafficRow } from './table.js';

/** The source every row belongs to (no source row behind it: callers turn foreign keys off or copy by hand). */
export const SOURCE = '01a1fc8d-93a2-767e-92f3-e5a71388f88b';
const redactor = createRedactor({ enabled: true, extraKeys: [] });

/**
 * Rows of `count` realistic records as ingest makes them, the `batch`-th group of that size: made-up
 * ids in order, two domains, a dozen pathnames and five routes (so the count rollup gets repeated
 * keys), compressible and tiny exchanges, null bodies, with and without a user. Shared by the
 * writers' tests and bench/copy-ways.ts.
 */
export function realisticRows(batch: number, count: number): NewTrafficRow[] {
  return Array.from({ length: count }, (_, i) => {
    const n = batch * count + i;
    const { record } = prepareRecord(ComposeRecord.parse(realisticRecord(n, SOURCE)), redactor);
    const hex = (k: number) => k.toString(16).padStart(12, '0');
    const filed = {
      domainId: `01a1fc8d-93a2-767e-92f3-0000${hex(n % 2).slice(4)}`,
      pathnameId: `01a1fc8d-93a2-767e-92f3-1000${hex(n % 12).slice(4)}`,
      route: { id: `01a1fc8d-93a2-767e-92f3-2000${hex(n % 5).slice(4)}`, template: '/t' },
    };
    return rowsOf(SOURCE, record, filed, '2026-11-27T08:00:00.000Z', `01a1fc8d-93a2-767e-92f3-${hex(n + 1)}`, false)
      .row;
  });
}
