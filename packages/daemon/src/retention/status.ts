import type { StorageHealth } from '@tapline/shared';
import type { Deps } from '../deps.js';
import { oldestEntryAt } from './sweep.js';

/** What `GET /healthz` tells of the database: page counts and an index probe per source, no scan. */
export async function storageHealth(deps: Pick<Deps, 'db' | 'storage' | 'config'>): Promise<StorageHealth> {
  const { maxAgeMs, maxBytes } = deps.config.retention;
  return {
    bytes: await deps.storage.sizeBytes(),
    oldestEntryAt: await oldestEntryAt(deps.db),
    retentionMs: maxAgeMs,
    maxBytes,
  };
}
