import type { TrafficSource } from '@tapline/shared';
import type { Deps } from '../deps.js';
import { HttpError, notFound } from '../http/errors.js';
import { authorizeSource } from '../auth/policy.js';
import type { RequestContext } from '../http/mount.js';
import { findTrafficSourceByName } from '../traffic-sources/repo.js';
import type { SourceGroup } from './store.js';
import type { Translation } from './translate.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A source named by id or by the token user's source name; 404 when there is none, 403 when not allowed. */
async function named(deps: Deps, ctx: RequestContext, userId: string, name: string): Promise<TrafficSource> {
  const source = UUID.test(name)
    ? await deps.findSource(name.toLowerCase())
    : await findTrafficSourceByName(deps.db, userId, name);
  if (!source) throw notFound('source_not_found');
  authorizeSource(ctx.principal, ctx.endpoint, source);
  return source;
}

/**
 * Which source each span's record goes to (docs/opentelemetry.md): the `x-tapline-source`
 * header (name or id) or each span's resource, which the contract's `access` cannot name, so each
 * source found is checked here by the same policy (auth/policy.ts). The order: the
 * header for the whole export; else the token's source restriction; else the
 * source named as each resource's `service.name`. Records of a service name no source has are
 * rejected (partial success); an export none of whose names resolves is a 404 that says so.
 */
export async function groupBySource(
  deps: Deps,
  ctx: RequestContext,
  header: string | undefined,
  t: Translation,
): Promise<{ groups: SourceGroup[]; rejected: Translation['rejected'] }> {
  const rejected: { count: number; reasons: string[] } = { count: 0, reasons: [] };
  const principal = ctx.principal;
  if (!principal || (t.records.length === 0 && t.unlinked.length === 0)) return { groups: [], rejected };
  const fixed = header?.trim() || principal.sourceId;
  if (fixed)
    return {
      groups: [{ source: await named(deps, ctx, principal.user.id, fixed), records: t.records, unlinked: t.unlinked }],
      rejected,
    };

  const byName = new Map<
    string,
    {
      source: TrafficSource | undefined;
      group: { records: SourceGroup['records'][number][]; unlinked: SourceGroup['unlinked'][number][] };
    }
  >();
  const slot = async (serviceName: string) => {
    let found = byName.get(serviceName);
    if (!found) {
      const source = serviceName ? await findTrafficSourceByName(deps.db, principal.user.id, serviceName) : undefined;
      if (source) authorizeSource(ctx.principal, ctx.endpoint, source);
      byName.set(serviceName, (found = { source, group: { records: [], unlinked: [] } }));
    }
    return found.group;
  };
  for (const record of t.records) (await slot(record.serviceName)).records.push(record);
  for (const item of t.unlinked) (await slot(item.serviceName)).unlinked.push(item);

  const groups: SourceGroup[] = [];
  const missing: string[] = [];
  for (const [name, { source, group }] of byName) {
    if (source) groups.push({ source, ...group });
    else {
      missing.push(name);
      rejected.count += group.records.length;
    }
  }
  const hint = `no traffic source named ${missing.map((n) => JSON.stringify(n)).join(', ')}: create one with that name, or name one in the x-tapline-source header`;
  if (groups.length === 0) throw new HttpError(404, 'source_not_found', hint.charAt(0).toUpperCase() + hint.slice(1));
  if (missing.length > 0) rejected.reasons.push(hint);
  return { groups, rejected };
}
