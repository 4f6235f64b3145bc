import {
  contract,
  formatLocalTime,
  hyphenate,
  MAX_PAGE_LIMIT,
  MIN_ID_PREFIX,
  prefixDigits,
  trafficTarget,
  type TrafficSource,
  type Webhook,
} from '@tapline/shared';
import { request } from './api.js';
import type { CliContext } from './context.js';
import { invalid, notFound, usage } from './exit-codes.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A source given as a UUID is used as is: the daemon answers 404 or 403 for it, as it should. */
export interface SourceRef {
  readonly id: string;
  /** The name, when it was looked up. */
  readonly name?: string;
}

/** Finds a list entry by `match`, page by page, stopping at the first hit. */
async function findInPages<T>(
  fetchPage: (page: number) => Promise<{ data: readonly T[]; meta: { limit: number } }>,
  match: (item: T) => boolean,
): Promise<T[]> {
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
  if (!source)
    throw notFound(`no traffic source named "${nameOrId}"`, "see `tapline sources list`, or give the source's id");
  return { id: source.id, name: source.name };
}

const allSources = (ctx: CliContext) =>
  findInPages<TrafficSource>(
    async (page) => (await request(ctx, contract.listTrafficSources, { query: { page, limit: MAX_PAGE_LIMIT } })).data,
    () => true,
  );

/** The names of every source the token sees, for shell completion. */
export async function sourceNames(ctx: CliContext): Promise<string[]> {
  return (await allSources(ctx)).map((s) => s.name);
}

/** `--domain shop.example.com` to the domain's id within the source. */
export async function resolveDomain(ctx: CliContext, sourceId: string, name: string): Promise<string> {
  const wanted = name.trim().toLowerCase();
  const hits = await findInPages(
    async (page) =>
      (
        await request(ctx, contract.listDomains, {
          params: { trafficSourceId: sourceId },
          query: { page, limit: MAX_PAGE_LIMIT },
        })
      ).data,
    (d) => d.value.toLowerCase() === wanted,
  );
  if (!hits[0])
    throw notFound(
      `no traffic to a domain named "${name}" in this source`,
      'domains appear once a record for them is composed',
    );
  return hits[0].id;
}

/**
 * `--path /api/orders` to the pathname's id. Pathnames live under a domain, so one path seen on
 * two domains is ambiguous without `--domain`: the filter takes a single id.
 */
export async function resolvePathname(
  ctx: CliContext,
  sourceId: string,
  name: string,
  domainId?: string,
): Promise<string> {
  const hits = await findInPages(
    async (page) =>
      (
        await request(ctx, contract.listPathnames, {
          params: { trafficSourceId: sourceId },
          query: { page, limit: MAX_PAGE_LIMIT, ...(domainId ? { domainId } : {}) },
        })
      ).data,
    (p) => p.value === name,
  );
  if (!hits[0])
    throw notFound(
      `no traffic to a path named "${name}" in this source${domainId ? ' and domain' : ''}`,
      'paths are matched exactly, without the query string',
    );
  if (hits.length > 1)
    throw usage(`the path "${name}" was seen on ${hits.length} domains`, 'add --domain to say which one');
  return hits[0].id;
}

/** Candidates listed when a prefix is ambiguous, as git lists them. */
const MAX_CANDIDATES = 10;

/** A full UUID as is (the daemon answers 404 for it), else the hex digits of a prefix; else exit 7, as the daemon's 400 was. */
function idOrPrefix(text: string, what: string): { id: string } | { prefix: string } {
  if (UUID.test(text.trim())) return { id: text.trim().toLowerCase() };
  const digits = prefixDigits(text);
  if (!digits)
    throw invalid(`"${text}" is not ${what} id: give the whole id or its first ${MIN_ID_PREFIX} or more hex digits`);
  return { prefix: hyphenate(digits) };
}

/** The id a prefix names when only one does; none is exit 5, several exit 2 listing them. */
function onlyOne<T extends { readonly id: string }>(
  prefix: string,
  hits: readonly T[],
  total: number,
  noun: readonly [one: string, many: string],
  describe: (hit: T) => string,
): string {
  const [first] = hits;
  if (!first) throw notFound(`no ${noun[0]} begins with ${prefix}`);
  if (total === 1) return first.id;
  const more = total > hits.length ? [`and ${total - hits.length} more`] : [];
  throw usage(
    `the id prefix ${prefix} is ambiguous: ${total} ${noun[1]} begin with it`,
    [...hits.map(describe), ...more, 'give more characters of the id'].join('\n  '),
  );
}

/** `<id>` of a traffic entry: a whole id, or a unique prefix of one, resolved by the daemon (`idPrefix`). */
export async function resolveEntryId(ctx: CliContext, sourceId: string, text: string): Promise<string> {
  const given = idOrPrefix(text, 'an entry');
  if ('id' in given) return given.id;
  const { data, meta } = (
    await request(ctx, contract.listTraffic, {
      params: { trafficSourceId: sourceId },
      query: { idPrefix: given.prefix, limit: MAX_CANDIDATES },
    })
  ).data;
  return onlyOne(
    given.prefix,
    data,
    meta.total,
    ['traffic entry', 'traffic entries'],
    (t) => `${t.id}  ${formatLocalTime(t.createdAt)}  ${t.method} ${t.status} ${trafficTarget(t)}`,
  );
}

/** `<webhookId>`: a whole id, or a unique prefix among the webhooks of every source the token sees. */
export async function resolveWebhookId(ctx: CliContext, text: string, within?: SourceRef): Promise<string> {
  const given = idOrPrefix(text, 'a webhook');
  if ('id' in given) return given.id;
  // A user has few sources and few webhooks on each: looking through them all here is cheap.
  // `within` (an alert rule's source) narrows it to the webhooks a rule may name.
  const sources = within ? [{ id: within.id, name: within.name ?? within.id }] : await allSources(ctx);
  const hits: (Webhook & { source: string })[] = [];
  for (const source of sources) {
    const found = await findInPages<Webhook>(
      async (page) =>
        (
          await request(ctx, contract.listWebhooks, {
            params: { trafficSourceId: source.id },
            query: { page, limit: MAX_PAGE_LIMIT },
          })
        ).data,
      (w) => w.id.startsWith(given.prefix),
    );
    hits.push(...found.map((w) => ({ ...w, source: source.name })));
  }
  return onlyOne(
    given.prefix,
    hits.slice(0, MAX_CANDIDATES),
    hits.length,
    ['webhook', 'webhooks'],
    (w) => `${w.id}  source ${w.source}  ${w.type} ${w.level}`,
  );
}
