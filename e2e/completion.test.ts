import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, type SpawnedDaemon, startDaemon, TAPLINE, tempHome } from './support/binaries.js';
import { createSource } from './support/compose.js';
import { tmuxServer } from './support/tmux.js';

/**
 * The scripts of `tapline completion` in the real shells (bash, zsh, fish from Debian), with a
 * `tapline` on PATH that reaches a spawned daemon, so source names come from it. The working
 * directory holds a file, so a shell that falls back to file names shows it.
 */

let home: ReturnType<typeof tempHome>;
let daemon: SpawnedDaemon;
let env: Record<string, string>;
let cwd: string;
const scripts: Record<string, string> = {};

beforeAll(async () => {
  home = tempHome();
  daemon = await startDaemon(home.path);
  await createSource(daemon.url, daemon.token, 'shop');
  const bin = join(home.path, 'bin');
  cwd = join(home.path, 'work');
  mkdirSync(bin);
  mkdirSync(cwd);
  writeFileSync(join(cwd, 'notes.txt'), 'a file the shells could offer\n');
  writeFileSync(
    join(bin, 'tapline'),
    `#!/bin/sh\nexec node ${JSON.stringify(TAPLINE)} --home ${JSON.stringify(home.path)} --url ${daemon.url} "$@"\n`,
    { mode: 0o755 },
  );
  env = {
    PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: home.path,
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
  };
  for (const shell of ['bash', 'zsh', 'fish']) {
    const printed = await cli(['completion', shell]);
    expect(printed.exitCode, printed.stderr).toBe(0);
    scripts[shell] = join(home.path, `tapline.${shell}`);
    writeFileSync(scripts[shell], printed.stdout);
  }
});

afterAll(async () => {
  await daemon?.stop();
  home?.remove();
});

const words = (text: string) => text.split(/\s+/).filter(Boolean).sort();
// Source names are asked of the daemon by spawning the CLI, once or more a line.
const SLOW = { timeout: 120_000 };

describe('bash: the completion function, called as bash calls it', SLOW, () => {
  /** The candidates for `line` (the cursor at its end). */
  const complete = async (line: string) => {
    const parts = line.split(' ');
    const program = `source ${scripts.bash}\nCOMP_WORDS=(${parts.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${parts.length - 1}; _tapline; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const result = await execa('bash', ['--norc', '--noprofile', '-c', program], {
      env,
      extendEnv: false,
      cwd,
      reject: false,
    });
    expect(result.stderr).toBe('');
    return words(String(result.stdout));
  };

  it('completes commands, options, values and source names, after aliases too', async () => {
    expect(await complete('tapline tr')).toEqual(['traffic']);
    expect(await complete('tapline traffic list --level ')).toEqual(['FATAL', 'INFO', 'WARNING']);
    expect(await complete('tapline traffic ls --level ')).toEqual(['FATAL', 'INFO', 'WARNING']);
    expect(await complete('tapline traffic ls shop --st')).toEqual(['--status']);
    expect(await complete('tapline traffic ls ')).toEqual(['shop']);
    expect(await complete('tapline sources rm ')).toEqual(['shop']);
    expect(await complete('tapline webhooks ls ')).toEqual(['shop']);
    expect(await complete('tapline webhooks rm --')).toEqual(expect.arrayContaining(['--yes']));
  });
});

describe('fish: complete -C, as fish completes a command line', SLOW, () => {
  const complete = async (line: string) => {
    const program = `source ${scripts.fish}; complete -C ${JSON.stringify(line)}`;
    const result = await execa('fish', ['--no-config', '-c', program], { env, extendEnv: false, cwd, reject: false });
    expect(result.stderr).toBe('');
    // Each candidate is a line: the word, then a tab and its description.
    return String(result.stdout)
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t')[0] ?? '')
      .sort();
  };

  it('offers only the levels after --level, never file names', async () => {
    expect(await complete('tapline traffic list --level ')).toEqual(['FATAL', 'INFO', 'WARNING']);
    expect(await complete('tapline traffic ls --level ')).toEqual(['FATAL', 'INFO', 'WARNING']);
    expect(await complete('tapline traffic tail shop --method P')).toEqual(['PATCH', 'POST', 'PUT']);
  });

  it('completes commands, options and source names, after aliases too', async () => {
    expect(await complete('tapline tr')).toEqual(['traffic']);
    expect(await complete('tapline traffic ls ')).toContain('shop');
    expect(await complete('tapline traffic ls shop --st')).toEqual(['--status']);
    expect(await complete('tapline sources rm ')).toContain('shop');
    expect(await complete('tapline webhooks ls ')).toContain('shop');
    expect(await complete('tapline sources rm shop --y')).toEqual(['--yes']);
  });
});

describe('zsh: Tab pressed in a real zsh (tmux)', SLOW, () => {
  const server = tmuxServer('zsh');
  const { tmux } = server;
  const type = (text: string) => server.type('zsh', text);
  const keys = (...k: string[]) => server.keys('zsh', ...k);
  const waitForScreen = (check: (s: string) => boolean, what: string) =>
    server.waitForScreen('zsh', check, what, 15_000);

  /** A fresh prompt on a clear screen, `line` typed and Tab pressed; resolves to the screen once `check` holds. */
  async function tab(line: string, check: (s: string) => boolean, what: string): Promise<string> {
    keys('C-c');
    type('clear');
    keys('Enter');
    await waitForScreen((s) => s.trim() === 'ready>', 'a clear prompt');
    type(line);
    keys('Tab');
    return waitForScreen(check, what);
  }

  beforeAll(async () => {
    const vars = Object.entries(env)
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(' ');
    tmux('new-session', '-d', '-s', 'zsh', '-x', '120', '-y', '20', '-c', cwd, `env -i ${vars} zsh -f`);
    // As a ~/.zshrc would: compinit, then the script; PS1 set last, so its prompt means all is loaded.
    type(`autoload -U compinit && compinit -u -D && source ${scripts.zsh} && PS1='ready> '`);
    keys('Enter');
    await waitForScreen((s) => s.split('\n').some((l) => l.startsWith('ready>')), 'zsh with the completion loaded');
  });

  afterAll(() => server.kill());

  it('completes a command, with no error from the script', async () => {
    const s = await tab('tapline tr', (t) => t.includes('tapline traffic'), 'tapline traffic');
    expect(s).not.toContain('unrecognized modifier');
    expect(s).not.toContain('_tapline:');
  });

  it('lists only the levels after --level, after the alias ls too', async () => {
    for (const command of ['list', 'ls']) {
      const s = await tab(`tapline traffic ${command} --level `, (t) => /FATAL/.test(t), `the levels after ${command}`);
      expect(words(s.split('\n').slice(1).join(' '))).toEqual(['FATAL', 'INFO', 'WARNING']);
      expect(s).not.toContain('notes.txt');
    }
  });

  it('completes source names from the daemon, after the aliases ls and rm', async () => {
    for (const line of ['tapline traffic ls ', 'tapline sources rm ']) {
      const s = await tab(line, (t) => t.includes(`${line}shop`), `${line}shop`);
      expect(s).not.toContain('_tapline:');
    }
  });
});
