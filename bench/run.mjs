// `pnpm bench`: runs every scenario in bench/scenarios (or those named on the command line) in
// order, each against freshly spawned built binaries on loopback, and prints a summary table.
// A scenario is a module whose default export is `async ({ root, log }) => ({ figure: value })`.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
const files = readdirSync(join(root, 'bench', 'scenarios'))
  .filter((f) => f.endsWith('.mjs'))
  .filter((f) => only.length === 0 || only.some((name) => f.includes(name)))
  .sort();

const results = {};
let failed = false;
for (const file of files) {
  const name = file.replace(/\.mjs$/, '');
  const log = (line) => process.stderr.write(`[${name}] ${line}\n`);
  const started = Date.now();
  try {
    const { default: run } = await import(pathToFileURL(join(root, 'bench', 'scenarios', file)).href);
    results[name] = await run({ root, log });
    log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } catch (error) {
    failed = true;
    results[name] = { error: error instanceof Error ? error.message : String(error) };
    log(`FAILED: ${results[name].error}`);
  }
}

process.stdout.write('\nTapline benchmark results\n');
for (const [name, figures] of Object.entries(results)) {
  process.stdout.write(`\n${name}\n`);
  for (const [key, value] of Object.entries(figures)) process.stdout.write(`  ${key.padEnd(44)} ${value}\n`);
}
process.exitCode = failed ? 1 : 0;
