import type { TaplineClient } from '../client.js';
import { apiErrorOf } from '../errors.js';
import { isRecord } from '../json.js';
import { CAPTURE_PATHS } from '../paths.js';
import type { PaginationMeta } from '../schemas/common.js';
import type { TrafficSource } from '../schemas/traffic-source.js';

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
    const { data, meta } = await listPage(client, page);
    const exact = data.find((s) => s.id === wanted || s.name === wanted);
    if (exact) return exact.id;
    folded.push(...data.filter((s) => s.name.toLowerCase() === wanted.toLowerCase()).map((s) => s.id));
    if (data.length === 0 || page * meta.limit >= meta.total) break;
  }
  if (folded.length === 1 && folded[0]) return folded[0];
  throw new SourceNotFoundError(wanted);
}

/**
 * One page of the token's sources. The answer is not run through the contract's schema (this is
 * the middleware's start-up path, which carries no zod); a malformed one fails as a TypeError and
 * is retried like an unreachable daemon.
 */
async function listPage(client: TaplineClient, page: number): Promise<SourcePage> {
  const response = await client.raw(`${CAPTURE_PATHS.listTrafficSources}?page=${page}&limit=1000`);
  const text = await response.text();
  if (!response.ok) throw apiErrorOf(response.status, text);
  const answer: unknown = JSON.parse(text);
  if (!isSourcePage(answer)) throw new TypeError('the daemon answered the source list with an unexpected body');
  return answer;
}

/** What resolving a name reads of a list answer. */
interface SourcePage {
  readonly data: readonly Pick<TrafficSource, 'id' | 'name'>[];
  readonly meta: Pick<PaginationMeta, 'limit' | 'total'>;
}

const isSource = (s: unknown) => isRecord(s) && typeof s.id === 'string' && typeof s.name === 'string';

const isSourcePage = (answer: unknown): answer is SourcePage =>
  isRecord(answer) &&
  Array.isArray(answer.data) &&
  answer.data.every(isSource) &&
  isRecord(answer.meta) &&
  typeof answer.meta.limit === 'number' &&
  typeof answer.meta.total === 'number';
