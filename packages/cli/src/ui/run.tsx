import { contract, type TrafficSource } from '@tapline/shared';
import clipboard from 'clipboardy';
import { render } from 'ink';
import type { CliContext } from '../context.js';
import { usage } from '../exit-codes.js';
import { resolveSource } from '../resolve.js';
import { createUiApi } from './client-api.js';
import { App } from './components/App.js';
import { recentFiltersFile } from './recent-filters.js';

export interface UiOptions {
  readonly where?: string;
}

const ENTER_ALT_SCREEN = '\u001B[?1049h\u001B[H';
const LEAVE_ALT_SCREEN = '\u001B[?1049l';

/** `tapline ui`: resolves the source, then runs the Ink app on the alternate screen until `q`. */
export async function runUi(ctx: CliContext, sourceArg: string | undefined, opts: UiOptions): Promise<void> {
  const { stdin, stdout } = process;
  if (!stdin.isTTY || !stdout.isTTY) throw usage('tapline ui needs a terminal', 'for pipes and scripts use `tapline traffic tail` or `tapline traffic list`');
  let source: TrafficSource | undefined;
  if (sourceArg) {
    const { id } = await resolveSource(ctx, sourceArg);
    const sources = await ctx.client.call(contract.listTrafficSources, { query: { limit: 1000 } });
    source = sources.data.find((s) => s.id === id) ?? { id, name: id, trafficDomain: '', userId: '', createdAt: '', updatedAt: '' };
  }
  const recent = recentFiltersFile(ctx.home);
  const api = createUiApi(ctx.client, (text) => clipboard.write(text));

  stdout.write(ENTER_ALT_SCREEN);
  const app = render(
    <App api={api} {...(source ? { source } : {})} initialFilter={opts.where?.trim() ?? ''} recentFilters={recent.load()} onRecentFilters={(list) => recent.save(list)} />,
    { exitOnCtrlC: true, patchConsole: true, maxFps: 15 },
  );
  const onAbort = () => app.unmount();
  ctx.io.signal.addEventListener('abort', onAbort, { once: true });
  const onResize = () => app.clear();
  stdout.on('resize', onResize);
  try {
    await app.waitUntilExit();
  } finally {
    stdout.off('resize', onResize);
    ctx.io.signal.removeEventListener('abort', onAbort);
    app.cleanup();
    stdout.write(LEAVE_ALT_SCREEN);
  }
}
