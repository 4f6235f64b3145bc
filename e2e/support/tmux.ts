import { execFileSync } from 'node:child_process';
import { TAPLINE } from './binaries.js';

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
    async waitForScreen(
      pane: string,
      check: (s: string) => boolean,
      what: string,
      timeoutMs = 20_000,
    ): Promise<string> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const s = screen(pane);
        if (check(s)) return s;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen was:\n${s}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    /**
     * The built `tapline ui SOURCE` in a new 120x30 pane, as a user's terminal runs it; the pane
     * stays after it exits, with its exit code on screen.
     */
    startUi(pane: string, source: string, env: { url: string; home: string }) {
      const ui = `env -u DISPLAY CI=true TAPLINE_URL=${env.url} TAPLINE_HOME=${env.home} TERM=xterm-256color node ${TAPLINE} ui ${source}; echo "tapline ui exited with $?"; sleep 600`;
      tmux('new-session', '-d', '-s', pane, '-x', '120', '-y', '30', ui);
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

// tmux writes a colour as 30-37/90-97 or 38;5;n; inverse video as 7, alone or among others.
export const FOREGROUND = /\u001B\[(?:[0-9;]*;)?(?:3[0-8]|9[0-7])[;m]/;

/** Whether `text` is drawn in inverse video: replays the SGR codes of the line up to it. */
export function inverseAt(line: string, text: string): boolean {
  const at = line.indexOf(text);
  if (at < 0) throw new Error(`"${text}" is not on the line ${JSON.stringify(line)}`);
  let inverse = false;
  for (const m of line.slice(0, at).matchAll(/\u001B\[([0-9;]*)m/g)) {
    const codes = (m[1] || '0').split(';').map(Number);
    for (let i = 0; i < codes.length; i++) {
      const code = codes[i];
      if (code === 38 || code === 48) i += codes[i + 1] === 5 ? 2 : 4;
      else if (code === 0 || code === 27) inverse = false;
      else if (code === 7) inverse = true;
    }
  }
  return inverse;
}
