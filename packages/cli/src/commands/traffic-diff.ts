import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { diffRecords, type Difference } from '@tapline/shared';
import { describeExchange, diffLines } from '../diff/render.js';
import { CliError, EXIT, toCliError } from '../exit-codes.js';
import { example } from '../help.js';
import type { ContextFactory } from '../register.js';
import { showTraffic } from './traffic-show.js';

export interface DiffResult {
  readonly a: { readonly id: string; readonly createdAt: string };
  readonly b: { readonly id: string; readonly createdAt: string };
  readonly differences: readonly Difference[];
}

/** `tapline traffic diff`: what differs between two exchanges of a source. */
export async function diffTraffic(
  ctx: CliContext,
  source: string,
  idA: string,
  idB: string,
): Promise<{ lines: string[]; result: DiffResult }> {
  const a = (await showTraffic(ctx, source, idA)).data;
  const b = (await showTraffic(ctx, source, idB)).data;
  const differences = diffRecords(a, b);
  const lines = [
    ctx.colors.dim(describeExchange('A', a)),
    ctx.colors.dim(describeExchange('B', b)),
    '',
    ...(differences.length ? diffLines(differences, ctx) : ['no differences (apart from id and time)']),
  ];
  return {
    lines,
    result: { a: { id: a.id, createdAt: a.createdAt }, b: { id: b.id, createdAt: b.createdAt }, differences },
  };
}

export function addTrafficDiff(traffic: Command, context: ContextFactory): void {
  const cmd = traffic
    .command('diff <source> <idA> <idB>')
    .description(
      'what differs between two exchanges: status, timing, method and URL, headers, JSON bodies by path; exit 1 when they differ',
    )
    .action(async (source: string, idA: string, idB: string, _opts: unknown, command: Command) => {
      const ctx = context(command);
      const { lines, result } = await diffTraffic(ctx, source, idA, idB).catch((error: unknown) => {
        // As diff(1): 1 says "they differ", so an unexpected failure, elsewhere 1, is 2 here.
        const failure = toCliError(error, ctx);
        throw failure.exitCode === EXIT.UNEXPECTED ? new CliError(EXIT.USAGE, failure.message, failure.hint) : failure;
      });
      if (ctx.mode !== 'table') ctx.print(JSON.stringify(result));
      else for (const line of lines) ctx.print(line);
      // The differences are printed already; the exit status alone says that there were some.
      if (result.differences.length) throw new CliError(EXIT.DIFFERENT, '');
    });
  example(
    cmd,
    'tapline traffic diff shop 019a4c2e-7b1d 019a4c31-02aa',
    "tapline traffic diff shop 019a4c2e-7b1d 019a4c31-02aa --json | jq '.differences[].path'",
  );
  cmd.addHelpText(
    'after',
    '\nExit status: 0 when the two are the same, 1 when they differ, 2 or more on errors (as diff(1); 3 to 7 as for every command).',
  );
}
