import type { Command } from 'commander';
import { systemClock } from '../clock.js';
import { describeLocator, parseLocator } from '../db/locator.js';
import { pruneCommand } from '../retention/admin.js';
import { backupFile } from '../retention/backup.js';
import { checkDatabaseAt } from '../retention/check.js';
import { commandDatabase as where } from './database.js';

/** The database as messages name it: the file, or `host:port/database`, never a password. */
const shown = (database: string) => describeLocator(parseLocator(database)).location;

/** `taplined prune`, `backup` and `check` (retention/, docs/storage.md). */
export function registerStorageCommands(cmd: Command): void {
  cmd
    .command('prune')
    .description('delete traffic now, on the database directly (also while the daemon runs); prints what it removed')
    .option('--older-than <duration>', 'entries older than this, such as 7d or 12h')
    .option('--before <time>', 'entries created before this ISO 8601 time, such as 2026-11-01')
    .option('--source <id>', 'only this traffic source')
    .addHelpText('after', '\nExample:\n  $ taplined prune --older-than 7d')
    .action(async (opts: { olderThan?: string; before?: string; source?: string }, command: Command) => {
      process.stdout.write(
        `${await where.withDatabase(command, (db, dialect) => pruneCommand(db, dialect, systemClock, opts))}\n`,
      );
    });
  cmd
    .command('backup <file>')
    .description(
      'write a consistent copy of the SQLite database to FILE, also while the daemon runs (PostgreSQL: use pg_dump)',
    )
    .addHelpText('after', '\nExample:\n  $ taplined backup ~/tapline-$(date +%F).db')
    .action(async (file: string, _opts: unknown, command: Command) => {
      process.stdout.write(`${await backupFile(where.database(command), file)}\n`);
    });
  cmd
    .command('check')
    .description('check the database: SQLite integrity and foreign keys, the count rollup; exits 1 on a problem')
    .action(async (_opts: unknown, command: Command) => {
      const database = where.database(command);
      const problems = await checkDatabaseAt(database);
      for (const problem of problems.slice(0, 100)) process.stderr.write(`taplined check: ${problem}\n`);
      if (problems.length > 100) process.stderr.write(`taplined check: (and ${problems.length - 100} more)\n`);
      process.stdout.write(
        problems.length === 0 ? `ok: ${shown(database)}\n` : `${problems.length} problems in ${shown(database)}\n`,
      );
      if (problems.length > 0) process.exitCode = 1;
    });
}
