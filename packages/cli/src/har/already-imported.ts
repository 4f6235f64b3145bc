import { ApiError, contract, domainOf, MAX_PAGE_LIMIT, type RecordBody } from '@tapline/shared';
import { everyPage, request } from '../api.js';
import type { CliContext } from '../context.js';

/**
 * What an imported HAR entry is known by in the source afterwards (docs/decisions.md, "Importing a HAR file again"):
 * its start time to the millisecond, method, host, path, status and time taken. Every one of
 * them is stored as the import sends it, so a second import of the same file finds each entry.
 */
interface Printed {
  readonly createdAt: string;
  readonly method: string;
  readonly domain: string;
  readonly pathname: string;
  readonly status: number;
  readonly elapsedTime: number;
}
const print = (e: Printed) => JSON.stringify([e.createdAt, e.method, e.domain, e.pathname, e.status, e.elapsedTime]);

/** A record about to be sent, as the source will show it; undefined without a start time (it gets the daemon's clock). */
function asStored(r: RecordBody): Printed | undefined {
  if (!r.startedAt) return undefined;
  return {
    createdAt: r.startedAt,
    method: r.method.toUpperCase(),
    domain: domainOf(r.domainUrl),
    pathname: r.pathnameUrl,
    status: r.status,
    elapsedTime: r.elapsedTime,
  };
}

/** The filter language's quoting (docs/filter-language.md, Values). */
const quoted = (text: string) => `"${text.replace(/[\\"]/g, '\\$&')}"`;
/** Well under the filter's 100 conditions and 4,000 characters; past it, the time window alone narrows. */
const MAX_DOMAINS_IN_FILTER = 40;

/**
 * How many entries of each print the source holds already, read through the list endpoint:
 * only the time window of the file (`startDate`/`endDate`, inclusive) and its hosts (`q`).
 */
async function storedPrints(
  ctx: CliContext,
  sourceId: string,
  wanted: readonly Printed[],
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  if (!wanted.length) return counts;
  const times = wanted.map((p) => p.createdAt).sort();
  const domains = [...new Set(wanted.map((p) => p.domain))];
  const q =
    domains.length <= MAX_DOMAINS_IN_FILTER ? domains.map((d) => `domain=${quoted(d)}`).join(' or ') : undefined;
  const query = { startDate: times[0], endDate: times[times.length - 1], limit: MAX_PAGE_LIMIT, ...(q ? { q } : {}) };
  const pages = everyPage((page) =>
    request(ctx, contract.listTraffic, { params: { trafficSourceId: sourceId }, query: { ...query, page } }),
  );
  for await (const { fresh } of pages) {
    for (const entry of fresh) counts.set(print(entry), (counts.get(print(entry)) ?? 0) + 1);
  }
  return counts;
}

/**
 * The records of a HAR file the source does not hold yet. A print found n times in the source
 * stands for n entries of the file, so a file with two identical requests imported once skips
 * both, and a partly imported file (an import cut short) sends only the rest.
 */
export async function notYetImported<T extends { readonly body: RecordBody }>(
  ctx: CliContext,
  sourceId: string,
  records: readonly T[],
): Promise<{ fresh: T[]; already: number }> {
  const printed = records.map((record) => ({ record, stored: asStored(record.body) }));
  let counts: Map<string, number>;
  try {
    counts = await storedPrints(
      ctx,
      sourceId,
      printed.flatMap(({ stored }) => (stored ? [stored] : [])),
    );
  } catch (error) {
    // An ingest-only token may send records but not list them: import as before, and say so.
    if (!(error instanceof ApiError && error.status === 403)) throw error;
    ctx.note('this token may not read the source, so entries imported before cannot be found and skipped');
    counts = new Map();
  }
  const fresh: T[] = [];
  for (const { record, stored } of printed) {
    const key = stored && print(stored);
    const left = key ? (counts.get(key) ?? 0) : 0;
    if (key && left > 0) counts.set(key, left - 1);
    else fresh.push(record);
  }
  return { fresh, already: records.length - fresh.length };
}
