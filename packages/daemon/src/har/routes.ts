import type { Contract } from '@tapline/shared';
import type { Response } from 'express';
import type { Deps } from '../deps.js';
import { drained } from '../http/drained.js';
import type { RawRoute } from '../http/table.js';
import { harEntry } from './entry.js';
import { type HarCursor, recordsAfter } from './repo.js';

/** Records read per query: a page of whole records (bodies included) is the most held in memory. */
const PAGE = 200;

/** Writes `text`, waiting while the client is slower than the database; false once it went away. */
async function write(res: Response, text: string): Promise<boolean> {
  if (res.destroyed) return false;
  if (res.write(text)) return true;
  await drained(res);
  return !res.destroyed;
}

/**
 * `GET /http-traffic/:trafficSourceId/export.har`: every matching entry, oldest first, as one HAR
 * 1.2 document written while it is read (a keyset cursor through the repository, backpressure
 * from the socket), so an export of any size holds one page in memory. Mounted before the
 * one-record route, whose `:id` would take `export.har`.
 */
export function harRoute(deps: Deps): RawRoute<Contract['exportHar']> {
  return {
    kind: 'raw',
    handler: async ({ query }, { loaded: source }, _req, res) => {
      res
        .status(200)
        .type('application/json')
        .set('content-disposition', `attachment; filename="${source.name.replace(/[^\w.-]+/g, '_')}.har"`);
      const creator = { name: 'Tapline', version: deps.config.version };
      if (!(await write(res, `{"log":{"version":"1.2","creator":${JSON.stringify(creator)},"pages":[],"entries":[`)))
        return;
      let cursor: HarCursor | null = null;
      let first = true;
      for (;;) {
        const records = await recordsAfter(deps, source.id, query, cursor, PAGE);
        for (const record of records) {
          if (!(await write(res, (first ? '\n' : ',\n') + JSON.stringify(harEntry(record))))) return;
          first = false;
        }
        const last = records.at(-1);
        if (!last || records.length < PAGE) break;
        cursor = { createdAt: last.createdAt, id: last.id };
      }
      res.end('\n]}}\n');
    },
  };
}
