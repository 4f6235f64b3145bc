import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { addUser } from '../admin/commands.js';
import { askNewPassword } from '../admin/prompt.js';
import { removeUser, setPassword, userTable } from '../admin/users.js';
import { systemClock } from '../clock.js';
import { ExitError } from '../exit-error.js';
import { commandDatabase as where } from './database.js';

/** One trailing newline is what `echo` and here-strings add; it is not part of the password. */
function readStdin(): string {
  return readFileSync(0, 'utf8').replace(/\r?\n$/, '');
}

/** `--password-stdin`, else a prompt on a terminal, else a usage error (nothing to ask on). */
async function newPassword(email: string, fromStdin: boolean | undefined): Promise<string> {
  if (fromStdin) return readStdin();
  if (!process.stdin.isTTY)
    throw new ExitError('no terminal to ask for the password on; pipe it in with --password-stdin', 2);
  return askNewPassword(email, process.stdin, process.stderr);
}

/** `taplined user add | list | passwd | remove`. */
export function registerUserCommands(cmd: Command): void {
  const user = cmd.command('user').description('manage users (docs/decisions.md §3.8)');
  user
    .command('add <email>')
    .description('add a user; prints the new user id')
    .option('--name <name>', 'display name')
    .option('--password-stdin', 'read a password from standard input (lets the user log in with tapline login)')
    .addHelpText('after', '\nExample:\n  $ printf "s3cret-pass" | taplined user add ana@example.com --password-stdin')
    .action(async (email: string, opts: { name?: string; passwordStdin?: boolean }, command: Command) => {
      const password = opts.passwordStdin ? readStdin() : undefined;
      const id = await where.withDatabase(command, (db) =>
        addUser(db, systemClock, { email, name: opts.name, password }),
      );
      process.stdout.write(`${id}\n`);
    });
  user
    .command('list')
    .description('list users: whether they have a password, the traffic sources they own, their tokens still valid')
    .action(async (_opts: unknown, command: Command) => {
      process.stdout.write(`${await where.withDatabase(command, (db) => userTable(db, systemClock))}\n`);
    });
  user
    .command('passwd <email>')
    .description("set a user's password, asked twice on a terminal; tokens already issued stay valid")
    .option('--password-stdin', 'read the password from standard input instead')
    .addHelpText(
      'after',
      '\nExamples:\n  $ taplined user passwd ana@example.com\n  $ printf "n3w-pass-phrase" | taplined user passwd ana@example.com --password-stdin',
    )
    .action(async (email: string, opts: { passwordStdin?: boolean }, command: Command) => {
      const password = await newPassword(email.trim(), opts.passwordStdin);
      const who = await where.withDatabase(command, (db) => setPassword(db, systemClock, email, password));
      process.stderr.write(`taplined: set the password of ${who}\n`);
    });
  user
    .command('remove <email>')
    .description(
      'remove a user and their tokens (they stop working at once); refused while they own traffic sources, unless --force',
    )
    .option('--force', 'also delete the traffic sources they own, with all their traffic')
    .addHelpText('after', '\nExample:\n  $ taplined user remove ana@example.com --force')
    .action(async (email: string, opts: { force?: boolean }, command: Command) => {
      process.stderr.write(
        `taplined: ${await where.withDatabase(command, (db) => removeUser(db, email, opts.force === true))}\n`,
      );
    });
}
