import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { run } from '../testing/run.js';

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
    expect(complete('tapline webhooks add shop --')).toEqual(expect.arrayContaining(['--type', '--level', '--value', '--json']));
  });

  it('prints zsh and fish scripts, and refuses other shells', async () => {
    expect((await run(['completion', 'zsh'])).stdout).toMatch(/^#compdef tapline\n.*bashcompinit/s);
    const fish = (await run(['completion', 'fish'])).stdout;
    expect(fish).toContain("complete -c tapline -n '__fish_use_subcommand' -a traffic");
    expect(fish).toContain("-l status -r -d");
    expect((await run(['completion', 'tcsh'])).code).toBe(EXIT.USAGE);
  });
});
