import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { type CopiedCount, CopyError, copyDatabase } from '../copy/copy.js';
import { progressReporter } from '../copy/progress.js';
import { openDatabase } from '../db/open.js';
import { parseCount } from '../flags.js';

const isUrl = (location: string) => /^postgres(ql)?:\/\//i.test(location);

/** `taplined copy` (copy/, docs/storage.md). It reads neither --home nor --db: both ends are its own flags. */
export function registerCopyCommand(cmd: Command): void {
  cmd
    .command('copy')
    .description(
      'copy a whole database to another, ids and timestamps unchanged (SQLite file or postgres:// URL); resumes if interrupted',
    )
    .requiredOption('--from <db>', 'the database to read')
    .requiredOption('--to <db>', 'the database to write: empty, or left by an interrupted copy of the same source')
    .option('--batch-size <rows>', 'rows read and written at once', '250')
    .addHelpText(
      'after',
      '\nExample:\n  $ taplined copy --from ~/.local/share/tapline/tapline.db --to postgres://tapline@db.internal/tapline',
    )
    .action(async (opts: { from: string; to: string; batchSize: string }) => {
      process.stdout.write(await runCopy(opts, process.stderr));
    });
}

/** Opens both ends (migrating each to this version), copies, and returns the summary to print. */
async function runCopy(
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
