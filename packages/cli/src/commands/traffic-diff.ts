import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { diffRecords, type Difference } from '../diff/compare.js';
import { describeExchange, diffLines } from '../diff/render.js';
import { example } from '../help.js';
import type { ContextFactory } from '../register.js';
import { showTraffic } from './traffic-show.js';

export interface DiffResult {
  readonly a: { readonly id: string; readonly createdAt: string };
  readonly b: { readonly id: string; readonly createdAt: string };
  readonly differences: readonly Difference[];
}

/** `tapline traffic diff`: what differs between two exchanges of a source. */
export async function diffTraffic(ctx: CliContext, source: string, idA: string, idB: string): Promise<{ lines: string[]; result: DiffResult }> {
  const a = (await showTraffic(ctx, source, idA)).data;
  const b = (await showTraffic(ctx, source, idB)).data;
  const differences = diffRecords(a, b);
  const lines = [
    ctx.colors.dim(describeExchange('A', a)),
    ctx.colors.dim(describeExchange('B', b)),
    '',
    ...(differences.length ? diffLines(differences, ctx) : ['no differences (apart from id and time)']),
  ];
  return { lines, result: { a: { id: a.id, createdAt: a.createdAt }, b: { id: b.id, createdAt: b.createdAt }, differences } };
}

export function addTrafficDiff(traffic: Command, context: ContextFactory): void {
  const cmd = traffic
    .command('diff <source> <idA> <idB>')
    .description('what differs between two exchanges: status, timing, method and URL, headers, JSON bodies by path')
    .action(async (source: string, idA: string, idB: string, _opts: unknown, command: Command) => {
      const ctx = context(command);
      const { lines, result } = await diffTraffic(ctx, source, idA, idB);
      if (ctx.mode !== 'table') return ctx.print(JSON.stringify(result));
      for (const line of lines) ctx.print(line);
    });
  example(cmd, 'tapline traffic diff shop 019a4c2e-7b1d 019a4c31-02aa', 'tapline traffic diff shop 019a4c2e-7b1d 019a4c31-02aa --json | jq \'.differences[].path\'');
}
