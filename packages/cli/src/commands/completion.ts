import { Argument, type Command, type Option } from 'commander';
import { example } from '../help.js';
import type { Register } from '../register.js';
import { sourceNames } from '../resolve.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

interface Node {
  /** Subcommand words from the root: `['traffic', 'list']`. */
  readonly path: readonly string[];
  /** Each word of `path` with its aliases: `[['traffic'], ['list', 'ls']]`. */
  readonly spellings: readonly (readonly string[])[];
  readonly description: string;
  readonly subcommands: readonly string[];
  readonly options: readonly Option[];
  /** Positional arguments in order: `source`, `choice:a,b` for a fixed set, `-` for free text. */
  readonly args: readonly string[];
}

/** Arguments and options whose values are source names, completed by asking the daemon. */
const SOURCE = 'source';
const SOURCES = '@sources';

/** The command tree, walked from the program itself so completions never drift from it. */
function walk(cmd: Command, path: readonly string[] = [], spellings: readonly (readonly string[])[] = []): Node[] {
  // commander keeps `hidden: true` of a subcommand in its private `_hidden`.
  const visible = cmd.commands.filter((c) => !('_hidden' in c && c._hidden === true));
  const names = visible.flatMap((c) => [c.name(), ...c.aliases()]);
  const options = cmd.options.filter((o) => !o.hidden);
  const args = cmd.registeredArguments.map((a) =>
    a.name() === SOURCE ? SOURCE : a.argChoices ? `choice:${a.argChoices.join(',')}` : '-',
  );
  return [
    { path, spellings, description: cmd.description(), subcommands: names, options, args },
    ...visible.flatMap((c) => walk(c, [...path, c.name()], [...spellings, [c.name(), ...c.aliases()]])),
  ];
}

const words = (node: Node, globals: readonly Option[]) =>
  [
    ...node.subcommands,
    ...[...node.options, ...globals].map((o) => o.long).filter((l): l is string => Boolean(l)),
    '--help',
  ].join(' ');

/** What a value after this option can be: its choices, source names, or nothing known (files). */
const valuesOf = (o: Option): string | null =>
  o.argChoices ? o.argChoices.join(' ') : o.attributeName() === SOURCE ? SOURCES : null;

/** Every way to type a node's words, aliases included: `traffic list`, `traffic ls`. */
const spelledPaths = (n: Node): string[][] =>
  n.spellings.reduce<string[][]>((paths, names) => paths.flatMap((p) => names.map((name) => [...p, name])), [[]]);

/** The words typed so far are the node's, with or without more (its arguments) after them. */
const pathPatterns = (n: Node) =>
  n.path.length === 0
    ? '*'
    : spelledPaths(n)
        .flatMap((p) => [`"${p.map((w) => ` ${w}`).join('')}"`, `"${p.map((w) => ` ${w}`).join('')} "*`])
        .join('|');

function nodeCase(n: Node, globals: readonly Option[]): string {
  const valued = n.options.filter((o) => o.long && valuesOf(o)).map((o) => `${o.long}) vals="${valuesOf(o)}" ;;`);
  const prev = valued.length ? ` case "$prev" in ${valued.join(' ')} esac;` : '';
  return `    ${pathPatterns(n)}) depth=${n.path.length}; args="${n.args.join(' ')}";${prev} opts="${words(n, n.path.length ? globals : [])}" ;;`;
}

function bash(program: Command): string {
  const nodes = walk(program);
  const globals = program.options.filter((o) => !o.hidden);
  const valued = [
    ...new Set(
      nodes
        .flatMap((n) => n.options)
        .concat(globals)
        .filter((o) => o.required || o.optional)
        .map((o) => o.long),
    ),
  ].join('|');
  // Deepest paths first: `case` takes the first pattern that matches.
  const cases = [...nodes]
    .sort((a, b) => b.path.length - a.path.length)
    .map((n) => nodeCase(n, globals))
    .join('\n');
  return `# tapline completion for bash: eval "$(tapline completion bash)", or save it in
# ~/.local/share/bash-completion/completions/tapline
_tapline() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" said="" skip="" w opts="" vals="" args="" depth=0 next i
  local -a conn=() typed=() wanted=()
  # Portable to zsh's bashcompinit: an index loop, as zsh reads \${COMP_WORDS[@]:1:COMP_CWORD-1}'s
  # ":C" as a modifier; and no variable named path, which zsh ties to PATH.
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    if [ -n "$skip" ]; then [ "$skip" = conn ] && conn+=("$w"); skip=""; continue; fi
    case "$w" in
      --url|--token|--home) conn+=("$w"); skip=conn ;;
      ${valued || '--none'}) skip=1 ;;
      -*) ;;
      *) said="$said $w" ;;
    esac
  done
  case "$said" in
${cases}
  esac
  # A positional argument: the next one this command takes, after those already typed.
  if [ -z "$vals" ] && [ -z "$skip" ] && [[ "$cur" != -* ]]; then
    typed=($said); wanted=($args); next="\${wanted[\${#typed[@]}-depth]}"
    case "$next" in
      ${SOURCE}) vals="${SOURCES}" ;;
      choice:*) vals="\${next#choice:}"; vals="\${vals//,/ }" ;;
    esac
  fi
  if [ "$vals" = "${SOURCES}" ]; then vals="$(tapline "\${conn[@]}" __complete sources 2>/dev/null)"; fi
  if [ -n "$vals" ]; then COMPREPLY=( $(compgen -W "$vals" -- "$cur") ); return; fi
  # The value of an option with no fixed set: leave it to the shell (file names).
  if [ -n "$skip" ]; then COMPREPLY=(); return; fi
  COMPREPLY=( $(compgen -W "$opts" -- "$cur") )
}
complete -o default -F _tapline tapline
`;
}

function zsh(program: Command): string {
  return `#compdef tapline
# tapline completion for zsh: eval "$(tapline completion zsh)" in ~/.zshrc, after compinit
autoload -U +X bashcompinit && bashcompinit
${bash(program)
  .split('\n')
  .filter((l) => !l.startsWith('#'))
  .join('\n')}`;
}

const fishQuote = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

const FISH_SOURCES = '(tapline __complete sources 2>/dev/null)';

/** fish's test that the words of `spellings` (any alias) were typed and nothing of the level below. */
function fishCondition(n: Node): string {
  if (n.path.length === 0) return '__fish_use_subcommand';
  const seen = n.spellings.map((names) => `__fish_seen_subcommand_from ${names.join(' ')}`);
  return [
    ...seen,
    ...(n.subcommands.length ? [`not __fish_seen_subcommand_from ${n.subcommands.join(' ')}`] : []),
  ].join('; and ');
}

function fish(program: Command): string {
  const nodes = walk(program);
  const lines = [
    '# tapline completion for fish: tapline completion fish > ~/.config/fish/completions/tapline.fish',
    'complete -c tapline -f',
  ];
  for (const node of nodes) {
    const cond = fishCondition(node);
    const parent = nodes.find(
      (n) => n.path.length === node.path.length - 1 && node.path.slice(0, -1).every((p, i) => n.path[i] === p),
    );
    const name = node.path[node.path.length - 1];
    if (parent && name)
      lines.push(
        `complete -c tapline -n ${fishQuote(fishCondition(parent))} -a ${name} -d ${fishQuote(node.description)}`,
      );
    if (node.args[0] === SOURCE && !node.subcommands.length)
      lines.push(`complete -c tapline -n ${fishQuote(cond)} -a ${fishQuote(FISH_SOURCES)}`);
    for (const o of node.options) {
      if (!o.long) continue;
      const values = valuesOf(o);
      // -x: only these values; -r alone would offer file names beside them.
      const taking = values
        ? ` -x -a ${fishQuote(values === SOURCES ? FISH_SOURCES : values)}`
        : o.required
          ? ' -r'
          : '';
      lines.push(
        `complete -c tapline -n ${fishQuote(cond)} -l ${o.long.replace(/^--/, '')}${taking} -d ${fishQuote(o.description)}`,
      );
    }
  }
  for (const o of program.options)
    if (o.long && !o.hidden)
      lines.push(
        `complete -c tapline -l ${o.long.replace(/^--/, '')}${o.required ? ' -r' : ''} -d ${fishQuote(o.description)}`,
      );
  return `${lines.join('\n')}\n`;
}

export function completionScript(program: Command, shell: Shell): string {
  return shell === 'bash' ? bash(program) : shell === 'zsh' ? zsh(program) : fish(program);
}

const root = (cmd: Command): Command => (cmd.parent ? root(cmd.parent) : cmd);

export const registerCompletion: Register = (program, context) => {
  // Hidden: the completion scripts call it for source names (with the --url/--token/--home typed so far).
  program
    .command('__complete', { hidden: true })
    .addArgument(new Argument('<what>').choices(['sources']))
    .action(async (_what: string, _opts: unknown, command: Command) => {
      const ctx = context(command);
      for (const name of await sourceNames(ctx)) ctx.print(name);
    });

  const cmd = program
    .command('completion')
    .description('print a shell completion script')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .action((shell: Shell, _opts: unknown, command: Command) => {
      // No context: completion needs neither token nor daemon.
      const out = root(command);
      out.configureOutput().writeOut?.(completionScript(out, shell));
    });
  example(
    cmd,
    'eval "$(tapline completion bash)"',
    'tapline completion fish > ~/.config/fish/completions/tapline.fish',
  );
};
