import { type Command, InvalidArgumentError } from 'commander';
import { CliError, EXIT, toCliError } from '../../exit-codes.js';
import { example } from '../../help.js';
import type { Register } from '../../register.js';
import { checkApi, checkLines, type CheckOptions } from './check.js';
import { diffDocuments } from './diff.js';
import { inferApi, type InferOptions, writeDocument } from './infer.js';
import { loadDereferenced } from './spec-file.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

const formatOf = (text: string): 'yaml' | 'json' => {
  if (text === 'yaml' || text === 'json') return text;
  throw new InvalidArgumentError('--format is yaml or json');
};

const examplesOf = (text: string): number => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 50)
    throw new InvalidArgumentError('--max-examples is an integer from 1 to 50');
  return n;
};

/** 1 says "does not conform" / "breaks clients", so an unexpected failure, elsewhere 1, is 2 here (as diff(1)). */
const notOne = (error: unknown, ctx?: Parameters<typeof toCliError>[1]): CliError => {
  const failure = toCliError(error, ctx);
  return failure.exitCode === EXIT.UNEXPECTED ? new CliError(EXIT.USAGE, failure.message, failure.hint) : failure;
};

/** `tapline api infer|check|diff` (docs/api-contract.md). */
export const registerApi: Register = (program, context) => {
  const api = program
    .command('api')
    .description(
      "the API's contract: inferred from stored traffic, checked against a spec, diffed (docs/api-contract.md)",
    );

  const infer = api
    .command('infer <source>')
    .description('print an OpenAPI 3.1 document inferred by the daemon from the stored traffic of a source')
    .option('--since <when>', 'from this long ago (1h, 7d) or this ISO 8601 time; default all stored traffic')
    .option('--until <when>', 'up to this long ago or this ISO 8601 time; default now')
    .option('--route <template>', 'only this route template (repeat for more), such as /users/{id}', collect)
    .option('-o, --output <file>', 'write to this file instead of stdout')
    .option('--format <format>', 'yaml or json; default yaml, or json for an --output ending in .json', formatOf)
    .action(async (source: string, opts: InferOptions, cmd: Command) => {
      const ctx = context(cmd);
      await writeDocument(ctx, await inferApi(ctx, source, opts), opts);
    });
  example(
    infer,
    'tapline api infer shop -o shop.yaml',
    'tapline api infer shop --since 7d --route /users/{id} --format json',
  );

  const check = api
    .command('check <source>')
    .description(
      'check the stored exchanges of a source against an OpenAPI 3.0/3.1 spec; exit 1 when one does not conform',
    )
    .requiredOption('--spec <file>', 'the spec, YAML or JSON; $refs to other files are resolved')
    .option('--since <when>', 'from this long ago (1d, 7d) or this ISO 8601 time; default all stored traffic')
    .option('--until <when>', 'up to this long ago or this ISO 8601 time; default now')
    .option('--route <template>', 'only this route template (repeat for more)', collect)
    .option('--max-examples <n>', 'entry ids shown per violation (1 to 50, default 5)', examplesOf)
    .action(async (source: string, opts: CheckOptions, cmd: Command) => {
      const ctx = context(cmd);
      const answer = await checkApi(ctx, source, opts).catch((error: unknown) => {
        throw notOne(error, ctx);
      });
      if (ctx.mode !== 'table') ctx.print(answer.text.trimEnd());
      else for (const line of checkLines(ctx, answer.data, source)) ctx.print(line);
      if (answer.data.violations.length > 0) throw new CliError(EXIT.NONCONFORMING, '');
    });
  example(
    check,
    'tapline api check shop --spec shop.yaml --since 1d',
    'tapline api check shop --spec openapi.json --json | jq ".violations[0]"',
  );
  check.addHelpText(
    'after',
    '\nExit status: 0 when every exchange conforms, 1 when one does not, 2 usage, 7 a spec that cannot be read or is not valid OpenAPI (3 to 6 as for every command).',
  );

  const diff = api
    .command('diff <old> <new>')
    .description(
      'what changed between two OpenAPI documents, each change marked breaking or not; exit 1 when something breaks clients',
    )
    .action(async (oldFile: string, newFile: string, _opts: unknown, cmd: Command) => {
      const ctx = context(cmd, { requireToken: false });
      const [before, after] = await Promise.all([loadDereferenced(oldFile), loadDereferenced(newFile)]).catch(
        (error: unknown) => {
          throw notOne(error, ctx);
        },
      );
      const changes = diffDocuments(before, after);
      const breaking = changes.filter((c) => c.breaking).length;
      if (ctx.mode !== 'table') ctx.print(JSON.stringify({ breaking, changes }));
      else {
        for (const c of changes)
          ctx.print(
            `${c.breaking ? ctx.colors.red('breaking  ') : ctx.colors.dim('compatible')} ${c.operation}${c.where ? ` ${c.where}` : ''}: ${c.change}`,
          );
        ctx.print(
          changes.length === 0
            ? 'no changes'
            : `${changes.length} change${changes.length === 1 ? '' : 's'}, ${breaking} breaking`,
        );
      }
      if (breaking > 0) throw new CliError(EXIT.NONCONFORMING, '');
    });
  example(
    diff,
    'tapline api diff shop.yaml <(tapline api infer shop --since 1d)',
    'tapline api diff old.yaml new.yaml --json | jq ".changes[] | select(.breaking)"',
  );
  diff.addHelpText(
    'after',
    '\nExit status: 0 when nothing breaks a client of OLD, 1 when something does, 2 usage, 7 a document that cannot be read or is not valid OpenAPI.',
  );
};
