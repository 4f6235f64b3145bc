import { writeFile } from 'node:fs/promises';
import { ApiError, contract, type OpenApiDocument } from '@tapline/shared';
import { stringify } from 'yaml';
import { request } from '../../api.js';
import { PASS_TIMEOUT_MS } from './pass-timeout.js';
import type { CliContext } from '../../context.js';
import { usage } from '../../exit-codes.js';
import { fileError, isFileProblem } from '../../file-errors.js';
import { resolveSource } from '../../resolve.js';

export interface InferOptions {
  readonly since?: string;
  readonly until?: string;
  readonly route?: string[];
  readonly output?: string;
  readonly format?: 'yaml' | 'json';
}

/** The daemon's document, unchanged: it infers where the bodies are, and only the document travels. */
export async function inferApi(ctx: CliContext, source: string, opts: InferOptions): Promise<OpenApiDocument> {
  const { id } = await resolveSource(ctx, source);
  const query = {
    ...(opts.since ? { since: opts.since } : {}),
    ...(opts.until ? { until: opts.until } : {}),
    ...(opts.route?.length ? { route: opts.route } : {}),
  };
  try {
    return await request(
      ctx,
      contract.inferApiContract,
      { params: { trafficSourceId: id }, query },
      PASS_TIMEOUT_MS,
    ).then((a) => a.data);
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) throw usage(error.message);
    throw error;
  }
}

/** YAML unless asked for JSON or writing to a `.json` file; both keep the daemon's key order, so the text is as stable as the document. */
export function documentText(
  doc: OpenApiDocument,
  format: 'yaml' | 'json' | undefined,
  file: string | undefined,
): string {
  const json = format === 'json' || (format === undefined && file?.toLowerCase().endsWith('.json') === true);
  return json ? `${JSON.stringify(doc, null, 2)}\n` : stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false });
}

export async function writeDocument(ctx: CliContext, doc: OpenApiDocument, opts: InferOptions): Promise<void> {
  const file = opts.output && opts.output !== '-' ? opts.output : undefined;
  const text = documentText(doc, opts.format, file);
  if (!file) {
    ctx.io.stdout.write(text);
    return;
  }
  try {
    await writeFile(file, text);
  } catch (error) {
    throw isFileProblem(error) ? fileError('write', file, error) : error;
  }
  const paths = Object.keys(typeof doc.paths === 'object' && doc.paths !== null ? doc.paths : {}).length;
  ctx.note(`wrote ${file} (${paths} path${paths === 1 ? '' : 's'})`);
}
