import { contract, type TrafficSource } from '@tapline/shared';
import { render } from 'ink';
import type { CliContext } from '../context.js';
import { usage } from '../exit-codes.js';
import { resolveSource } from '../resolve.js';
import { createUiApi } from './client-api.js';
import { copyText } from './clipboard.js';
import { App } from './components/App.js';
import { PaletteContext } from './palette.js';
import { recentFiltersFile } from './recent-filters.js';
import { ENTER_ALT_SCREEN, LEAVE_ALT_SCREEN, withStyling } from './terminal.js';

export interface UiOptions {
  /** Already checked by the command: a usage error must come before the screen is taken. */
  readonly where?: string;
}

/** `tapline ui`: resolves the source, then runs the Ink app on the alternate screen until `q`. */
export async function runUi(ctx: CliContext, sourceArg: string | undefined, opts: UiOptions): Promise<void> {
  const terminal = ctx.io.terminal;
  if (!terminal?.stdin.isTTY || !terminal.stdout.isTTY) {
    throw usage(
      'tapline ui needs a terminal',
      'for pipes and scripts use `tapline traffic tail` or `tapline traffic list`',
    );
  }
  const { stdin, stdout, stderr } = terminal;
  let source: TrafficSource | undefined;
  if (sourceArg) {
    const { id } = await resolveSource(ctx, sourceArg);
    const sources = await ctx.client.call(contract.listTrafficSources, { query: { limit: 1000 } });
    source = sources.data.find((s) => s.id === id) ?? {
      id,
      name: id,
      trafficDomain: '',
      userId: '',
      createdAt: '',
      updatedAt: '',
    };
  }
  const recent = recentFiltersFile(ctx.home);
  const api = createUiApi(ctx.client, (text) => copyText(text, { stdout }));
  const palette = { color: ctx.colors.isColorSupported };

  await withStyling(ctx.io.env, async () => {
    stdout.write(ENTER_ALT_SCREEN);
    const app = render(
      <PaletteContext.Provider value={palette}>
        <App
          api={api}
          {...(source ? { source } : {})}
          initialFilter={opts.where?.trim() ?? ''}
          recentFilters={recent.load()}
          onRecentFilters={(list) => recent.save(list)}
        />
      </PaletteContext.Provider>,
      // `interactive`: redraw in place even when CI is set; the UI runs only on a terminal.
      { stdin, stdout, stderr, interactive: true, exitOnCtrlC: true, patchConsole: true, maxFps: 15 },
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
  });
}
