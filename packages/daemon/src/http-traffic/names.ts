import type { Executor } from '../db/open.js';
import { findOrCreateDomain, findOrCreatePathname } from './repo.js';

/**
 * Ids of domains and pathnames known to exist, by `source host` and `domainId path`. Only ids
 * from committed transactions enter the ingest's cache; a group's new ids wait in `learned`.
 */
export interface IdCache {
  readonly domains: Map<string, string>;
  readonly pathnames: Map<string, string>;
}

/** What a group names: one source's records at a time. */
interface Named {
  readonly source: { readonly id: string };
  readonly records: readonly { readonly domain: string; readonly pathname: string }[];
}

/** The ids of a group's names, every one resolved. */
export interface KnownNames {
  domain(sourceId: string, domain: string): string;
  pathname(domainId: string, pathname: string): string;
}

/**
 * Finds or creates, before any other write of the transaction, every domain and pathname the
 * group names that is not cached, each kind in sorted order. Two writers (two daemons on one
 * PostgreSQL database) creating the same new names then take their locks in the same order and
 * wait for each other instead of deadlocking, as they did when names were made record by record.
 */
export async function resolveNames(
  trx: Executor,
  group: readonly Named[],
  now: string,
  ids: { cache: IdCache; learned: IdCache },
): Promise<KnownNames> {
  const idOf = (kind: keyof IdCache, key: string): string | undefined =>
    ids.cache[kind].get(key) ?? ids.learned[kind].get(key);
  const resolved = (kind: keyof IdCache, key: string): string => {
    const id = idOf(kind, key);
    if (!id) throw new Error(`${kind} ${key} was not resolved`);
    return id;
  };
  const known: KnownNames = {
    domain: (sourceId, domain) => resolved('domains', `${sourceId} ${domain}`),
    pathname: (domainId, pathname) => resolved('pathnames', `${domainId} ${pathname}`),
  };

  const domains = new Map<string, { sourceId: string; domain: string }>();
  for (const { source, records } of group) {
    for (const { domain } of records) {
      const key = `${source.id} ${domain}`;
      if (!idOf('domains', key)) domains.set(key, { sourceId: source.id, domain });
    }
  }
  for (const [key, { sourceId, domain }] of sorted(domains))
    ids.learned.domains.set(key, await findOrCreateDomain(trx, sourceId, domain, now));

  const paths = new Map<string, { sourceId: string; domainId: string; pathname: string }>();
  for (const { source, records } of group) {
    for (const { domain, pathname } of records) {
      const domainId = known.domain(source.id, domain);
      const key = `${domainId} ${pathname}`;
      if (!idOf('pathnames', key)) paths.set(key, { sourceId: source.id, domainId, pathname });
    }
  }
  for (const [key, { sourceId, domainId, pathname }] of sorted(paths))
    ids.learned.pathnames.set(key, await findOrCreatePathname(trx, sourceId, domainId, pathname, now));
  return known;
}

const sorted = <T>(map: Map<string, T>): [string, T][] => [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
