import { type Command, InvalidArgumentError } from 'commander';
import { example } from '../../help.js';
import type { Register } from '../../register.js';
import { inferApi, type InferOptions, writeDocument } from './infer.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

const formatOf = (text: string): 'yaml' | 'json' => {
  if (text === 'yaml' || text === 'json') return text;
  throw new InvalidArgumentError('--format is yaml or json');
};

/** `tapline api infer|check|diff` (docs/api-contract.md). */
export const registerApi: Register = (program, context) => {
  const api = program.command('api').description("the API's contract: inferred from stored traffic, checked against a spec, diffed (docs/api-contract.md)");

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
  example(infer, 'tapline api infer shop -o shop.yaml', 'tapline api infer shop --since 7d --route /users/{id} --format json');
};
