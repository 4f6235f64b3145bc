import type { TrafficSource } from '@tapline/shared';
import type { Deps } from '../deps.js';
import { notFound } from '../http/errors.js';
import { authorizeSource, type RequestContext } from '../http/mount.js';

/** The source named in a path, after the 404 and then the ownership/scope check (403). */
export async function loadAuthorizedSource(deps: Deps, ctx: RequestContext, id: string): Promise<TrafficSource> {
  const source = await deps.findSource(id);
  if (!source) throw notFound('source_not_found');
  authorizeSource(ctx, source);
  return source;
}
