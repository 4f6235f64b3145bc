import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { isRecord, OpenApiDocument } from '@tapline/shared';
import { parse } from 'yaml';
import { invalid } from '../../exit-codes.js';

/** What the parser takes and gives: its own type for an OpenAPI document. */
type ParserDocument = Awaited<ReturnType<typeof SwaggerParser.bundle>>;

const messageOf = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0]?.trim() ?? '';

/** An OpenAPI 3.0 or 3.1 document, as far as the parser needs to begin; it validates the rest. */
function isOpenApi3(value: unknown): value is ParserDocument {
  if (!isRecord(value)) throw new Error('the file holds no YAML or JSON object');
  if (typeof value.openapi !== 'string' || !/^3\.[01]\./.test(value.openapi)) {
    throw new Error(
      `only OpenAPI 3.0 and 3.1 are read (openapi: ${JSON.stringify(value.openapi ?? value.swagger ?? null)})`,
    );
  }
  return true;
}

/** The parser's bundle, its `$ref`s resolved relative to `file`, after its own validation. */
async function bundled(file: string): Promise<ParserDocument> {
  try {
    const parsed: unknown = parse(await readFile(file, 'utf8'));
    if (!isOpenApi3(parsed)) throw new Error('not OpenAPI');
    const bundle = await SwaggerParser.bundle(resolve(file), parsed, {});
    await SwaggerParser.validate(structuredClone(bundle));
    return bundle;
  } catch (error) {
    throw invalid(`${file} is not a readable, valid OpenAPI document: ${messageOf(error)}`);
  }
}

/**
 * A spec file (OpenAPI 3.0 or 3.1, YAML or JSON) with its `$ref`s to other files bundled in and
 * validated by swagger-parser: exit 7 with the parser's message for a file that cannot be read or
 * is not valid OpenAPI. Read once, so a pipe works (`<(tapline api infer shop)`). Local `$ref`s
 * stay, so a recursive schema still fits in JSON.
 */
export async function loadSpec(file: string): Promise<OpenApiDocument> {
  return OpenApiDocument.parse(await bundled(file));
}

/** The same document with every `$ref` replaced by what it names (cycles stay cycles), for comparing. */
export async function loadDereferenced(file: string): Promise<Record<string, unknown>> {
  const document: unknown = await SwaggerParser.dereference(await bundled(file));
  return isRecord(document) ? document : {};
}
