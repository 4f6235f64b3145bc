import { createInterface } from 'node:readline/promises';
import type { CliContext } from './context.js';
import { usage } from './exit-codes.js';

/**
 * Asks before a destructive step. `--yes` skips the question; with no terminal to ask on, the
 * command refuses (exit 2) rather than guess, so a script must say `--yes` explicitly.
 */
export async function confirm(ctx: CliContext, question: string, yes: boolean | undefined): Promise<boolean> {
  if (yes) return true;
  if (!ctx.io.stdin.isTTY)
    throw usage(
      `${question.replace(/\?$/, '')}: refusing without --yes, as standard input is not a terminal`,
      'add --yes to confirm',
    );
  // The question is written through the Io seam, not by readline, which would want a whole stream.
  const rl = createInterface({ input: ctx.io.stdin, terminal: false });
  try {
    ctx.io.signal.throwIfAborted();
    ctx.io.stderr.write(`${question} [y/N] `);
    const answer = await rl.question('', { signal: ctx.io.signal });
    return /^y(es)?$/i.test(answer.trim());
  } catch {
    return false;
  } finally {
    rl.close();
  }
}
