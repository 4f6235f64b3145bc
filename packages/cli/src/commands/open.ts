import { spawn } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { contract } from '@tapline/shared';
import type { CliContext } from '../context.js';
import { CliError, EXIT, notFound } from '../exit-codes.js';
import { example } from '../help.js';
import type { Register } from '../register.js';

export interface OpenResult {
  readonly url: string;
  readonly email: string;
}

/** Starts the browser on a file or URL; rejects when it cannot be started at all. */
export type Launcher = (target: string) => Promise<void>;

const htmlText = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * `tapline open`: the daemon's web UI, signed in with the CLI's token. The token goes in the
 * URL's fragment, which browsers never send to a server, and the page removes it from the
 * address bar (docs/decisions.md §24.2). The browser is not given that URL on its command line,
 * where other users of the machine could read it: it opens `<home>/open.html` (private to the
 * user, as the token file is), which sends it on.
 */
export async function openWebUi(ctx: CliContext, launch: Launcher): Promise<OpenResult> {
  const me = await ctx.client.call(contract.me);
  const page = await ctx.client.raw('/', { headers: { accept: 'text/html' } });
  await page.body?.cancel();
  if (page.status !== 200)
    throw notFound(
      `${ctx.url} serves no web UI (answered ${page.status})`,
      'taplined serves it at / unless started with --no-ui',
    );
  const signedIn = `${ctx.url}/#token=${encodeURIComponent(ctx.token ?? '')}`;
  const file = join(ctx.home, 'open.html');
  writeFileSync(
    file,
    `<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer"><meta http-equiv="refresh" content="0;url=${htmlText(signedIn)}"><title>Tapline</title>\n`,
    { mode: 0o600 },
  );
  chmodSync(file, 0o600);
  await launch(pathToFileURL(file).href);
  return { url: `${ctx.url}/`, email: me.email };
}

/** `$BROWSER` (its first command, as xdg-utils reads it), else the platform's opener. */
export const systemLauncher: Launcher = (target) => {
  const chosen = process.env.BROWSER?.split(':')[0]?.trim();
  const [command, ...args] = chosen
    ? [chosen]
    : process.platform === 'darwin'
      ? ['open']
      : process.platform === 'win32'
        ? ['cmd', '/c', 'start', '""']
        : ['xdg-open'];
  return new Promise((resolve, reject) => {
    const child = spawn(command ?? 'xdg-open', [...args, target], { detached: true, stdio: 'ignore' });
    child.once('error', (error) =>
      reject(
        new CliError(
          EXIT.UNEXPECTED,
          `cannot start a browser (${command}: ${error.message})`,
          'set BROWSER to your browser, or open the address and sign in',
        ),
      ),
    );
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
};

export const registerOpen: Register = (program, context) => {
  const cmd = program
    .command('open')
    .description("the daemon's web UI in your browser, signed in with this CLI's token")
    .action(async (_opts: unknown, command: Command) => {
      const ctx = context(command);
      const result = await openWebUi(ctx, systemLauncher);
      if (ctx.mode !== 'table') return ctx.print(JSON.stringify(result));
      ctx.print(`opened ${result.url} in the browser, signed in as ${result.email}`);
    });
  example(cmd, 'tapline open', 'BROWSER=firefox tapline open');
};
