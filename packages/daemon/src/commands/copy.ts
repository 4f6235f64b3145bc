import type { Command } from 'commander';

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
      const { runCopy } = await import('../copy/run.js');
      process.stdout.write(await runCopy(opts, process.stderr));
    });
}
