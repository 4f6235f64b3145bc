import { contract, MAX_PAGE_LIMIT, type TrafficSource } from '@tapline/shared';
import { request } from './api.js';
import type { CliContext } from './context.js';
import { notFound, usage } from './exit-codes.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A source given as a UUID is used as is: the daemon answers 404 or 403 for it, as it should. */
export interface SourceRef {
  readonly id: string;
  /** The name, when it was looked up. */
  readonly name?: string;
}

/** Finds a list entry by `match`, page by page, stopping at the first hit. */
async function findInPages<T>(fetchPage: (page: number) => Promise<{ data: readonly T[]; meta: { limit: number } }>, match: (item: T) => boolean): Promise<T[]> {
  const hits: T[] = [];
  for (let page = 1; ; page++) {
    const { data, meta } = await fetchPage(page);
    hits.push(...data.filter(match));
    if (data.length < meta.limit) return hits;
  }
}

/** `<source>` as a name or a UUID, to the source's id (decisions: "a source name or its UUID works"). */
export async function resolveSource(ctx: CliContext, nameOrId: string): Promise<SourceRef> {
  if (UUID.test(nameOrId)) return { id: nameOrId.toLowerCase() };
  const hits = await findInPages<TrafficSource>(
    async (page) => (await request(ctx, contract.listTrafficSources, { query: { page, limit: MAX_PAGE_LIMIT } })).data,
    (s) => s.name === nameOrId,
  );
  const [source] = hits;
  if (!source) throw notFound(`no traffic source named "${nameOrId}"`, 'see `tapline sources list`, or give the source\'s id');
  return { id: source.id, name: source.name };
}

/** `--domain shop.example.com` to the domain's id within the source. */
export async function resolveDomain(ctx: CliContext, sourceId: string, name: string): Promise<string> {
  const wanted = name.trim().toLowerCase();
  const hits = await findInPages(
    async (page) => (await request(ctx, contract.listDomains, { params: { trafficSourceId: sourceId }, query: { page, limit: MAX_PAGE_LIMIT } })).data,
    (d) => d.value.toLowerCase() === wanted,
  );
  if (!hits[0]) throw notFound(`no traffic to a domain named "${name}" in this source`, 'domains appear once a record for them is composed');
  return hits[0].id;
}

/**
 * `--path /api/orders` to the pathname's id. Pathnames live under a domain, so one path seen on
 * two domains is ambiguous without `--domain`: the filter takes a single id.
 */
export async function resolvePathname(ctx: CliContext, sourceId: string, name: string, domainId?: string): Promise<string> {
  const hits = await findInPages(
    async (page) =>
      (await request(ctx, contract.listPathnames, { params: { trafficSourceId: sourceId }, query: { page, limit: MAX_PAGE_LIMIT, ...(domainId ? { domainId } : {}) } })).data,
    (p) => p.value === name,
  );
  if (!hits[0]) throw notFound(`no traffic to a path named "${name}" in this source${domainId ? ' and domain' : ''}`, 'paths are matched exactly, without the query string');
  if (hits.length > 1) throw usage(`the path "${name}" was seen on ${hits.length} domains`, 'add --domain to say which one');
  return hits[0].id;
}
