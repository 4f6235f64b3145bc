import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { run } from '@tapline/testkit/cli';

describe('tapline completion', () => {
  it('prints a bash script that completes subcommands and options', async () => {
    const script = (await run(['completion', 'bash'])).stdout;
    const complete = (line: string) => {
      const words = line.split(' ');
      const program = `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _tapline; echo "\${COMPREPLY[@]}"`;
      return execFileSync('bash', ['-c', program], { encoding: 'utf8' }).trim().split(' ');
    };
    expect(complete('tapline tr')).toEqual(['traffic']);
    expect(complete('tapline traffic ')).toEqual(expect.arrayContaining(['list', 'show']));
    expect(complete('tapline --url http://x traffic list shop --st')).toEqual(['--status']);
    expect(complete('tapline webhooks add shop --')).toEqual(
      expect.arrayContaining(['--type', '--level', '--value', '--json']),
    );
  });

  it('offers values where values belong, not flag names', async () => {
    const script = (await run(['completion', 'bash'])).stdout;
    const complete = (line: string) => {
      const words = line.split(' ');
      const program = `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _tapline; echo "\${COMPREPLY[@]}"`;
      return execFileSync('bash', ['-c', program], { encoding: 'utf8' }).trim().split(' ').filter(Boolean);
    };
    expect(complete('tapline traffic list shop --level ')).toEqual(['INFO', 'WARNING', 'FATAL']);
    expect(complete('tapline traffic tail shop --method P')).toEqual(['POST', 'PUT', 'PATCH']);
    expect(complete('tapline webhooks add shop --type ')).toEqual(['discord', 'slack', 'http']);
    expect(complete('tapline webhooks add shop --level f')).toEqual(['fatal']);
    expect(complete('tapline completion ')).toEqual(['bash', 'zsh', 'fish']);
    // A value with no fixed set is left to the shell (file names), never answered with flags.
    expect(complete('tapline traffic list shop --path ')).toEqual([]);
    expect(complete('tapline --url ')).toEqual([]);
  });

  it('prints zsh and fish scripts, and refuses other shells', async () => {
    const zsh = (await run(['completion', 'zsh'])).stdout;
    const bash = (await run(['completion', 'bash'])).stdout;
    expect(zsh).toMatch(/^#compdef tapline\n.*bashcompinit/s);
    // zsh runs the bash function through bashcompinit: values and source names come alike.
    expect(zsh).toContain(bash.slice(bash.indexOf('_tapline() {')));
    const fish = (await run(['completion', 'fish'])).stdout;
    expect(fish).toContain("complete -c tapline -n '__fish_use_subcommand' -a traffic");
    expect(fish).toContain('-l status -r -d');
    expect(fish).toContain("-l level -x -a 'INFO WARNING FATAL'");
    expect(fish).toContain("-a '(tapline __complete sources 2>/dev/null)'");
    expect((await run(['completion', 'tcsh'])).code).toBe(EXIT.USAGE);
  });
});
