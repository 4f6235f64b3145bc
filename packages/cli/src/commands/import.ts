import type { Command } from 'commander';
import { contract, DEFAULT_MAX_BODY } from '@tapline/shared';
import { request } from '../api.js';
import type { CliContext } from '../context.js';
import { example } from '../help.js';
import { notYetImported } from '../har/already-imported.js';
import { readHar } from '../har/read.js';
import type { Register } from '../register.js';
import { resolveSource } from '../resolve.js';
import { checkRecords, readRecordInput } from './record.js';

/** Records per batch request: far below the endpoint's 1,000 and 16 MiB with bodies capped at 64 KiB each. */
const PER_BATCH = 200;

export interface ImportResult {
  readonly imported: number;
  readonly ids: string[];
  /** Entries not recorded, by reason (`OPTIONS`, `no response`). */
  readonly skipped: Record<string, number>;
  /** Entries the source holds already (an earlier import of the same file), not sent again. */
  readonly alreadyImported: number;
}

/**
 * `tapline import <source> FILE.har`: every entry of a recorded method goes through the batch
 * endpoint, its `startedDateTime` as `startedAt`. The whole file is read and checked first, so a
 * malformed one sends nothing (exit 7); entries the source holds already are not sent again.
 */
export async function importHar(ctx: CliContext, source: string, file: string): Promise<ImportResult> {
  const text = await readRecordInput(ctx, file);
  const har = await readHar(text, file, DEFAULT_MAX_BODY);
  const { id } = await resolveSource(ctx, source);
  const { fresh, already } = await notYetImported(ctx, id, checkRecords(har.records, id));
  const ids: string[] = [];
  try {
    for (let i = 0; i < fresh.length; i += PER_BATCH) {
      const body = fresh.slice(i, i + PER_BATCH).map((r) => r.body);
      ids.push(...(await request(ctx, contract.composeBatch, { params: { trafficSourceId: id }, body })).data.ids);
    }
  } catch (error) {
    if (ids.length)
      ctx.note(
        `${ids.length} of ${fresh.length} entries were imported before this error; importing the file again sends only the rest`,
      );
    throw error;
  }
  return { imported: ids.length, ids, skipped: Object.fromEntries(har.skipped), alreadyImported: already };
}

export const registerImport: Register = (program, context) => {
  const cmd = program
    .command('import <source> <file>')
    .description(
      'import the requests of a HAR file (Chrome, Firefox, mitmproxy, HTTP Toolkit) into a source; entries imported before are skipped',
    )
    .action(async (source: string, file: string, _opts: unknown, command: Command) => {
      const ctx = context(command);
      const result = await importHar(ctx, source, file);
      if (ctx.mode !== 'table') return ctx.print(JSON.stringify(result));
      const skipped = Object.entries(result.skipped);
      const total = skipped.reduce((n, [, count]) => n + count, 0);
      ctx.print(`imported ${result.imported} ${result.imported === 1 ? 'entry' : 'entries'} into ${source}`);
      if (result.alreadyImported > 0) ctx.print(`skipped ${result.alreadyImported} already imported`);
      // Methods the interface does not record (HEAD, OPTIONS…), entries without a response, other schemes.
      if (total > 0) ctx.print(`skipped ${total} (${skipped.map(([why, count]) => `${why} ${count}`).join(', ')})`);
    });
  example(cmd, 'tapline import shop session.har', 'tapline import shop flows.har --json | jq .imported');
};
