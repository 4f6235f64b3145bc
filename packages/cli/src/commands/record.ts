import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import {
  ApiError,
  ComposeRecord,
  contract,
  type ComposeRecordInput,
  formatBytes,
  formatLatency,
  trafficTarget,
  type HttpTrafficRecord,
} from '@tapline/shared';
import { request, type Answer } from '../api.js';
import type { CliContext } from '../context.js';
import { BODY_LIMIT_HINT, CliError, invalid, usage } from '../exit-codes.js';
import { fileError } from '../file-errors.js';
import { example } from '../help.js';
import { readAll } from '../io.js';
import type { Register } from '../register.js';
import { resolveSource } from '../resolve.js';
import { paintLevel, paintStatus } from '../style.js';

/** One record to send, and where it came from (`line 3`), for messages. */
export interface RecordInput {
  readonly where: string;
  readonly body: Record<string, unknown>;
}

/** The label of a record given as one JSON object rather than as lines. */
const WHOLE = 'the input';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A JSON object, a JSON array of them, or NDJSON (one object per line). Bad JSON is refused
 * here, naming the line, before anything is sent.
 */
export function parseRecords(text: string): RecordInput[] {
  const trimmed = text.trim();
  if (!trimmed) throw invalid('no record given: the input is empty');
  try {
    const whole: unknown = JSON.parse(trimmed);
    if (Array.isArray(whole) && whole.length === 0)
      throw invalid('no records: the input is an empty JSON array; nothing was sent');
    if (Array.isArray(whole)) return whole.map((body, i) => toInput(body, `item ${i + 1}`));
    return [toInput(whole, WHOLE)];
  } catch (error) {
    if (error instanceof CliError) throw error;
  }
  const records: RecordInput[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      throw invalid(
        `line ${i + 1} is not valid JSON (${error instanceof Error ? error.message : String(error)})`,
        'give one JSON object, or NDJSON: one object per line',
      );
    }
    records.push(toInput(parsed, `line ${i + 1}`));
  });
  return records;
}

function toInput(body: unknown, where: string): RecordInput {
  if (!isObject(body))
    throw invalid(`${where}: expected a JSON object with domainUrl, pathnameUrl, status, method, ...`);
  return { where, body };
}

/** The contract's own check, as a type guard: the body is what `ComposeRecordInput` describes. */
const isComposeInput = (body: Record<string, unknown>): body is ComposeRecordInput =>
  ComposeRecord.safeParse(body).success;

/** A record the contract accepts, sent as it was given (unparsed, so nothing is added or dropped). */
export interface CheckedRecord {
  readonly where: string;
  readonly body: ComposeRecordInput;
}

/**
 * Fills in the source's id and checks each record with the contract's ComposeRecord schema, so
 * a bad batch is refused whole (exit 7, naming the line and fields) and nothing is sent.
 */
export function checkRecords(records: readonly RecordInput[], trafficSourceId: string): CheckedRecord[] {
  const bad: string[] = [];
  const checked = records.flatMap(({ where, body }) => {
    const filled = { ...body, trafficSourceId: body.trafficSourceId ?? trafficSourceId };
    const issues: string[] = [];
    if (filled.trafficSourceId !== trafficSourceId)
      issues.push(`trafficSourceId: must be this source's id ${trafficSourceId} (or left out)`);
    if (isComposeInput(filled) && !issues.length) return [{ where, body: filled }];
    const result = ComposeRecord.safeParse(filled);
    if (!result.success) issues.push(...result.error.issues.map((issue) => describeIssue(filled, issue)));
    bad.push(`${where}: ${issues.join('; ')}`);
    return [];
  });
  // Every issue of every invalid record, one record a line, as a compiler lists its errors: the
  // producer of a batch fixes them all in one go.
  const [first, ...rest] = bad;
  if (first)
    throw invalid(
      `invalid record${first.startsWith(`${WHOLE}:`) ? first.slice(WHOLE.length) : ` on ${first}`}`,
      [...rest, `${rest.length ? `${bad.length} invalid records; ` : ''}nothing was sent`].join('\n  '),
    );
  return checked;
}

/** `status must be ...` when the schema's message names the field already; `requestHeaders is missing`. */
function describeIssue(
  record: Record<string, unknown>,
  issue: { path: PropertyKey[]; message: string; code: string },
): string {
  const path = issue.path.map(String).join('.');
  const value = issue.path.reduce<unknown>((v, key) => (isObject(v) ? v[String(key)] : undefined), record);
  if (issue.code === 'invalid_type' && value === undefined) return `${path} is missing`;
  return !path || issue.message.startsWith(path) ? issue.message : `${path}: ${issue.message}`;
}

export async function readRecordInput(ctx: CliContext, file: string | undefined): Promise<string> {
  if (file && file !== '-') {
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      throw fileError('read', file, error);
    }
  }
  if (ctx.io.stdin.isTTY) throw usage('give the record with --file, or pipe JSON or NDJSON into tapline record');
  return readAll(ctx.io.stdin);
}

/** `tapline record`: composes each record in order, as the daemon's compose endpoint does. */
export async function composeRecords(
  ctx: CliContext,
  source: string,
  records: readonly RecordInput[],
  onComposed?: (answer: Answer<HttpTrafficRecord>) => void,
) {
  const { id } = await resolveSource(ctx, source);
  const checked = checkRecords(records, id);
  const answers: Answer<HttpTrafficRecord>[] = [];
  try {
    for (const record of checked) {
      const answer = await request(ctx, contract.composeRecord, {
        params: { trafficSourceId: id },
        body: record.body,
      }).catch((error: unknown) => {
        throw tooLarge(error, record) ?? error;
      });
      answers.push(answer);
      onComposed?.(answer);
    }
  } catch (error) {
    if (answers.length) ctx.note(`${answers.length} of ${checked.length} records were composed before this error:`);
    throw error;
  }
  return answers;
}

/** A 413 told with the record, its size, and the daemon's flag that sets the limit. */
function tooLarge(error: unknown, record: CheckedRecord): CliError | undefined {
  if (!(error instanceof ApiError) || error.status !== 413) return undefined;
  const size = formatBytes(Buffer.byteLength(JSON.stringify(record.body)));
  return invalid(
    `the daemon refused ${record.where} as too large: ${size} of JSON, over its body limit`,
    BODY_LIMIT_HINT,
  );
}

/**
 * `--json` prints one document: the API's answer as it came for a record given as one object,
 * else an array of the answers in input order (each the API's own text).
 */
function jsonDocument(records: readonly RecordInput[], answers: readonly Answer<HttpTrafficRecord>[]): string {
  const [only] = answers;
  if (only && records[0]?.where === WHOLE) return only.text.trimEnd();
  return `[${answers.map((a) => a.text.trim()).join(',')}]`;
}

export function printComposed(ctx: CliContext, answer: Answer<HttpTrafficRecord>): void {
  if (ctx.mode !== 'table') return ctx.print(answer.text.trimEnd());
  const r = answer.data;
  const c = ctx.colors;
  ctx.print(
    `${c.dim(r.id)}  ${r.method} ${paintStatus(c, r.status)} ${paintLevel(c, r.level)} ${formatLatency(r.elapsedTime)}  ${trafficTarget(r)}`,
  );
}

export const registerRecord: Register = (program, context) => {
  const record = program
    .command('record <source>')
    .description('compose traffic records from a JSON object or NDJSON lines (a file or stdin)')
    .option('--file <file>', 'read from this file instead of standard input')
    .action(async (source: string, opts: { file?: string }, cmd: Command) => {
      const ctx = context(cmd);
      const records = parseRecords(await readRecordInput(ctx, opts.file));
      const answers = await composeRecords(
        ctx,
        source,
        records,
        (answer) => ctx.mode !== 'json' && printComposed(ctx, answer),
      );
      if (ctx.mode === 'json') ctx.print(jsonDocument(records, answers));
    });
  example(
    record,
    `echo '{"domainUrl":"https://shop.example.com","pathnameUrl":"/api/orders","status":201,"protocol":"HTTPS","method":"POST","elapsedTime":42,"requestHeaders":{},"queryParams":{},"responseHeaders":{}}' | tapline record shop`,
    'tapline record shop --file captured.ndjson',
  );
};
