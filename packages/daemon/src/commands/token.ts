import type { Command } from 'commander';
import { createToken, revoke, tokenTable } from '../admin/commands.js';
import { systemClock } from '../clock.js';
import { commandDatabase as where } from './database.js';

/** `taplined token create | list | revoke`. */
export function registerTokenCommands(cmd: Command): void {
  const token = cmd.command('token').description('manage API tokens');
  token
    .command('create <email>')
    .description('create a token for a user; prints the token')
    .option('--expires <duration>', 'lifetime such as 30d or 12h, or never', 'never')
    .option('--scope <scope>', 'full, read or ingest', 'full')
    .option('--source <id>', 'restrict the token to one traffic source')
    .addHelpText('after', '\nExample:\n  $ taplined token create ana@example.com --scope ingest --expires 30d')
    .action(async (email: string, opts: { expires: string; scope: string; source?: string }, command: Command) => {
      const jwt = await where.withDatabase(command, (db) => createToken(db, systemClock, { email, ...opts }));
      process.stdout.write(`${jwt}\n`);
    });
  token
    .command('list [email]')
    .description('list tokens (ids, never the tokens themselves)')
    .action(async (email: string | undefined, _opts: unknown, command: Command) => {
      process.stdout.write(`${await where.withDatabase(command, (db) => tokenTable(db, email))}\n`);
    });
  token
    .command('revoke <tokenId>')
    .description('revoke a token by id; it stops working at once')
    .action(async (tokenId: string, _opts: unknown, command: Command) => {
      await where.withDatabase(command, (db) => revoke(db, systemClock, tokenId));
      process.stderr.write(`revoked ${tokenId}\n`);
    });
}
