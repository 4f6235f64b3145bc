import type { TaplineClient } from '../client.js';
import { contract } from '../contract.js';

/** No traffic source the token can see has that name or id. */
export class SourceNotFoundError extends Error {
  constructor(readonly source: string) {
    super(`no traffic source named "${source}" is visible to this token`);
    this.name = 'SourceNotFoundError';
  }
}

/**
 * The id of the source named `nameOrId`: an exact id or name match, else the one source whose
 * name matches ignoring case. Works with an `ingest` token, which may list sources (docs/decisions.md §3.5).
 */
export async function resolveSourceId(client: TaplineClient, nameOrId: string): Promise<string> {
  const wanted = nameOrId.trim();
  const folded: string[] = [];
  for (let page = 1; ; page++) {
    const { data, meta } = await client.call(contract.listTrafficSources, { query: { page, limit: 1000 } });
    const exact = data.find((s) => s.id === wanted || s.name === wanted);
    if (exact) return exact.id;
    folded.push(...data.filter((s) => s.name.toLowerCase() === wanted.toLowerCase()).map((s) => s.id));
    if (data.length === 0 || page * meta.limit >= meta.total) break;
  }
  if (folded.length === 1 && folded[0]) return folded[0];
  throw new SourceNotFoundError(wanted);
}
