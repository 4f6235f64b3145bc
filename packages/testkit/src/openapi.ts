import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';

/** The redocly CLI (on @redocly/openapi-core) installed as a dependency: no network, `redocly lint`'s rules. */
const REDOCLY = join(dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin/cli.js');

/**
 * What two validators nobody here wrote find wrong with a document (an object, or a YAML or JSON
 * file): swagger-parser's validation (its message) and every `error` of `redocly lint` (rule and
 * message). Empty when both pass.
 */
export async function openApiErrors(doc: object | string): Promise<string[]> {
  const errors: string[] = [];
  await SwaggerParser.validate(typeof doc === 'string' ? doc : (structuredClone(doc) as never)).catch(
    (error: unknown) => errors.push(`swagger-parser: ${error instanceof Error ? error.message : String(error)}`),
  );
  const dir = mkdtempSync(join(tmpdir(), 'tapline-openapi-'));
  try {
    const file = typeof doc === 'string' ? doc : join(dir, 'openapi.json');
    if (typeof doc !== 'string') writeFileSync(file, JSON.stringify(doc));
    const run = await promisify(execFile)(process.execPath, [REDOCLY, 'lint', file, '--format=json'], {
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { stdout: string }) => error);
    const report = JSON.parse(run.stdout) as { problems: { severity: string; ruleId: string; message: string }[] };
    for (const p of report.problems) if (p.severity === 'error') errors.push(`redocly ${p.ruleId}: ${p.message}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return errors;
}
