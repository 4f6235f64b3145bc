import { execFileSync } from 'node:child_process';

/**
 * A private tmux server (its own socket, named after the test process), so a test never touches
 * the developer's sessions, and what a test does with its panes: type, press keys, read the screen.
 */
export function tmuxServer(name: string) {
  const socket = `tapline-e2e-${name}-${process.pid}`;
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  const screen = (pane: string) => tmux('capture-pane', '-p', '-t', pane);
  return {
    tmux,
    screen,
    /** The pane with its styling, as SGR escape sequences (`capture-pane -e`). */
    styled: (pane: string) => tmux('capture-pane', '-p', '-e', '-t', pane),
    /** Keys by tmux name (`Enter`, `Tab`, `C-c`, `Escape`). */
    keys: (pane: string, ...k: string[]) => tmux('send-keys', '-t', pane, ...k),
    /** Text typed literally. */
    type: (pane: string, text: string) => tmux('send-keys', '-t', pane, '-l', text),
    /** Polls the pane until `check` holds; the failure shows the last screen. */
    async waitForScreen(pane: string, check: (s: string) => boolean, what: string, timeoutMs = 20_000): Promise<string> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const s = screen(pane);
        if (check(s)) return s;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen was:\n${s}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    kill() {
      try {
        tmux('kill-server');
      } catch {
        // Already gone.
      }
    },
  };
}
