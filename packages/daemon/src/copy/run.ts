import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { type CopiedCount, CopyError, copyDatabase } from './copy.js';
import { progressReporter } from './progress.js';
import { openDatabase } from '../db/open.js';
import { parseCount } from '../flags.js';

// `taplined copy`'s work, which commands/copy.ts loads when the command runs: cli-progress and the
// copy are not loaded by every other command and every start of the daemon (issue 30's cold start).

const isUrl = (location: string) => /^postgres(ql)?:\/\//i.test(location);

/** Opens both ends (migrating each to this version), copies, and returns the summary to print. */
export async function runCopy(
  opts: { from: string; to: string; batchSize: string },
  progress: NodeJS.WriteStream,
): Promise<string> {
  const batchSize = parseCount('--batch-size', opts.batchSize);
  const same = isUrl(opts.from) || isUrl(opts.to) ? opts.from === opts.to : resolve(opts.from) === resolve(opts.to);
  if (same) throw new CopyError('--from and --to name the same database');
  if (!isUrl(opts.from) && !existsSync(opts.from)) throw new CopyError(`there is no database at ${opts.from}`);
  const from = openDatabase(opts.from, { pool: 2 });
  try {
    const to = openDatabase(opts.to, { pool: 2 });
    try {
      await from.migrate();
      await to.migrate();
      return summary(await copyDatabase(from, to, { batchSize, report: progressReporter(progress) }));
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
}

function summary(copied: readonly CopiedCount[]): string {
  const width = Math.max(...copied.map((c) => c.table.length));
  const lines = copied.map(
    (c) =>
      `${c.table.padEnd(width)}  ${c.rows}${c.alreadyThere > 0 ? ` (${c.alreadyThere} already there from an earlier run)` : ''}`,
  );
  return `${lines.join('\n')}\ncopied ${copied.reduce((n, c) => n + c.rows, 0)} rows\n`;
}
