import chalk, { type ColorSupportLevel } from 'chalk';

type Env = Readonly<Record<string, string | undefined>>;

export const ENTER_ALT_SCREEN = '\u001B[?1049h\u001B[H';
export const LEAVE_ALT_SCREEN = '\u001B[?1049l';

/** How many colours the terminal takes, from TERM and COLORTERM only: CI variables say nothing about a terminal. */
export function colorLevel(env: Env): ColorSupportLevel {
  if (env.COLORTERM === 'truecolor' || env.COLORTERM === '24bit') return 3;
  if (/256/.test(env.TERM ?? '')) return 2;
  return 1;
}

/**
 * Ink styles text (colour, inverse, bold) through chalk's shared instance, whose level chalk
 * guesses once from the environment and sets to 0 whenever CI is set, even in a real terminal.
 * The UI runs only on a terminal, so it sets the level itself for its lifetime, and restores it.
 * Styling stays on under NO_COLOR too: inverse and bold are not colour (palette.ts drops colour).
 */
export async function withStyling<T>(env: Env, run: () => Promise<T>): Promise<T> {
  const before = chalk.level;
  chalk.level = colorLevel(env);
  try {
    return await run();
  } finally {
    chalk.level = before;
  }
}
