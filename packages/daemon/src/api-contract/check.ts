import { createHash } from 'node:crypto';
import { isRecord } from '@tapline/shared/lean';
import type { ApiCheckAnswer, ApiCheckBody, ApiViolation, HttpTrafficRecord, ViolationKind } from '@tapline/shared';
import type { Store } from '../db/open.js';
import { mediaOf } from './evidence.js';
import { type ContractExchange, eachExchange } from './records.js';
import { basePathsOf, follow, operationsOf, PathIndex, type SpecOperation } from './spec.js';
import { type SchemaFailure, SpecValidators } from './validators.js';

const DEFAULT_EXAMPLES = 5;

type Found = Omit<ApiViolation, 'count' | 'examples'>;
type DocumentedResponse = { status: string | undefined; response: ReturnType<typeof follow> };
type Headers = HttpTrafficRecord['request']['headers'];

/** The documented response of a status: its own, its class (`4XX`), or `default`. */
function responseOf(op: SpecOperation, status: number): string | undefined {
  const keys = [String(status), `${String(status)[0]}XX`, `${String(status)[0]}xx`, 'default'];
  return keys.find((k) => op.responses[k] !== undefined);
}

/** The documented media type of a body: exact, then `type/*`, then `*\/*`. */
function mediaKey(content: Record<string, unknown>, media: string): string | undefined {
  const candidates = [media, `${media.split('/')[0] ?? ''}/*`, '*/*'];
  return (
    candidates.find((c) => isRecord(content[c])) ??
    Object.keys(content).find((k) => k.split(';')[0]?.trim().toLowerCase() === media)
  );
}

const isJsonMedia = (media: string) =>
  media === 'application/json' || media.endsWith('+json') || media.endsWith('/json');

function headerValue(headers: Headers, name: string): string | string[] | undefined {
  const lower = name.toLowerCase();
  for (const key in headers) if (key.length === lower.length && key.toLowerCase() === lower) return headers[key];
  return undefined;
}

/** Everything one spec needs while the exchanges stream past: operations by path and method, validators compiled. */
class Checker {
  readonly #ops = new Map<string, SpecOperation>();
  readonly #paths: PathIndex;
  readonly #validators: SpecValidators;

  constructor(readonly spec: ApiCheckBody['spec']) {
    const operations = operationsOf(spec);
    for (const op of operations) this.#ops.set(`${op.method} ${op.path}`, op);
    this.#paths = new PathIndex(
      operations.map((o) => o.path),
      basePathsOf(spec),
    );
    this.#validators = new SpecValidators(spec);
    for (const op of operations) this.#prepare(op);
  }

  get operations(): SpecOperation[] {
    return [...this.#ops.values()];
  }

  /** Body schemas by content object and media type: found once, not for every exchange. */
  readonly #bodySchemas = new WeakMap<Record<string, unknown>, Map<string, string | undefined>>();
  /** The documented response of each operation and status, resolved once. */
  readonly #responses = new Map<SpecOperation, Map<number, DocumentedResponse>>();

  #bodySchema(content: Record<string, unknown>, pointer: string, media: string): string | undefined {
    let byMedia = this.#bodySchemas.get(content);
    if (!byMedia) this.#bodySchemas.set(content, (byMedia = new Map<string, string | undefined>()));
    if (byMedia.has(media)) return byMedia.get(media);
    const schema = this.#findBodySchema(content, pointer, media);
    byMedia.set(media, schema);
    return schema;
  }

  #response(op: SpecOperation, code: number): DocumentedResponse {
    let byCode = this.#responses.get(op);
    if (!byCode) this.#responses.set(op, (byCode = new Map<number, DocumentedResponse>()));
    let documented = byCode.get(code);
    if (!documented) {
      const status = responseOf(op, code);
      const response =
        status === undefined ? undefined : follow(this.spec, op.responses[status], `${op.pointer}/responses/${status}`);
      documented = { status, response };
      byCode.set(code, documented);
    }
    return documented;
  }

  #findBodySchema(content: Record<string, unknown>, pointer: string, media: string): string | undefined {
    const key = mediaKey(content, media);
    if (key === undefined) return undefined;
    const entry = content[key];
    return isRecord(entry) && isRecord(entry.schema)
      ? `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}/schema`
      : undefined;
  }

  #prepare(op: SpecOperation): void {
    for (const p of op.parameters) if (p.schema) this.#validators.prepare(p.schema, 'parameter');
    if (op.requestBody)
      for (const media of Object.keys(op.requestBody.content)) {
        const pointer = this.#bodySchema(op.requestBody.content, op.requestBody.pointer, media);
        if (pointer) this.#validators.prepare(pointer, 'body');
      }
    for (const status of Object.keys(op.responses)) {
      const response = follow(this.spec, op.responses[status], `${op.pointer}/responses/${status}`);
      if (!response || !isRecord(response.value.content)) continue;
      for (const media of Object.keys(response.value.content)) {
        const pointer = this.#bodySchema(response.value.content, `${response.pointer}/content`, media);
        if (pointer) this.#validators.prepare(pointer, 'body');
      }
    }
  }

  /** The operation of an exchange (or why there is none), and every way the exchange breaks it. */
  check(record: ContractExchange): { op: SpecOperation | undefined; found: Found[] } {
    const at = { method: record.method, status: record.status };
    const match = this.#paths.find(record.pathname);
    if (match === undefined)
      return {
        op: undefined,
        found: [
          {
            ...at,
            kind: 'undocumented-path',
            path: record.route ?? record.pathname,
            pointer: '',
            rule: 'undocumented-path',
            message: `no path of the spec matches ${record.pathname}`,
          },
        ],
      };
    const { path } = match;
    const op = this.#ops.get(`${record.method} ${path}`);
    if (!op)
      return {
        op: undefined,
        found: [
          {
            ...at,
            kind: 'undocumented-method',
            path,
            pointer: '',
            rule: 'undocumented-method',
            message: `${path} documents no ${record.method}`,
          },
        ],
      };
    const found: Found[] = [];
    const add = (kind: ViolationKind, failures: readonly SchemaFailure[], prefix = '') => {
      for (const f of failures)
        found.push({ ...at, kind, path, pointer: prefix + f.pointer, rule: f.rule, message: f.message });
    };
    for (const p of op.parameters) {
      // A path parameter the template does not name is the spec's slip, not the exchange's: not checked.
      const value = p.in === 'path' ? match.values.get(p.name) : headerOrQuery(record, p.in, p.name);
      const kind = p.in;
      if (value === undefined) {
        if (p.required && p.in !== 'path')
          add(
            kind,
            [{ pointer: '', rule: 'required', message: `the required ${p.in} parameter ${p.name} is missing` }],
            `/${p.name}`,
          );
      } else if (p.schema) add(kind, this.#validators.validate(p.schema, 'parameter', value), `/${p.name}`);
    }
    if (op.requestBody) {
      if (record.request.body === null) {
        if (op.requestBody.required)
          add('request-body', [{ pointer: '', rule: 'required', message: 'the required request body is missing' }]);
      } else {
        const media = mediaOf(record.request.headers, record.request.body);
        const schema = isJsonMedia(media)
          ? this.#bodySchema(op.requestBody.content, op.requestBody.pointer, media)
          : undefined;
        if (schema) add('request-body', this.#validators.validate(schema, 'body', record.request.body));
      }
    }
    const { status, response } = this.#response(op, record.status);
    if (status === undefined) {
      found.push({
        ...at,
        kind: 'undocumented-status',
        path,
        pointer: '',
        rule: 'undocumented-status',
        message: `${record.method} ${path} documents no ${record.status} response`,
      });
      return { op, found };
    }
    if (response && isRecord(response.value.content) && record.response.body !== null) {
      const media = mediaOf(record.response.headers, record.response.body);
      const schema = isJsonMedia(media)
        ? this.#bodySchema(response.value.content, `${response.pointer}/content`, media)
        : undefined;
      if (schema) add('response-body', this.#validators.validate(schema, 'body', record.response.body));
    }
    return { op, found };
  }
}

function headerOrQuery(
  record: ContractExchange,
  where: 'query' | 'header',
  name: string,
): string | string[] | undefined {
  return where === 'header' ? headerValue(record.request.headers, name) : record.request.queryParams[name];
}

/** Array indices are one place for counting (`/items/3/id` and `/items/7/id` break the same rule). */
const groupKey = (f: Found) =>
  [f.kind, f.method, f.path, f.status ?? '', f.pointer.replace(/\/\d+(?=\/|$)/g, '/-'), f.rule].join('\u0000');

/** Specs whose compiled checker is kept: CI checks one document, a team a few. */
const KEPT_SPECS = 4;

/** The longest spec (its JSON text, in characters) whose compiled checker is kept between checks. */
const KEPT_SPEC_CHARS = 1024 * 1024;

/**
 * The checkers of the specs checked last, by the SHA-256 of their JSON text: compiling a spec's
 * schemas took about a second of a check of 100,000 entries (decisions §25.9). A checker holds
 * only what the spec says, so one serves any number of checks, at once or in turn.
 */
export class CheckerCache {
  readonly #kept = new Map<string, Checker>();

  constructor(readonly size = KEPT_SPECS) {}

  /** The spec's checker, compiled now (a 400 naming `spec` when it does not compile) or kept from before. */
  of(spec: ApiCheckBody['spec']): Checker {
    const text = JSON.stringify(spec);
    // A spec of several MiB compiles to far more than that: checked, not kept.
    if (text.length > KEPT_SPEC_CHARS) return new Checker(spec);
    const key = createHash('sha256').update(text).digest('base64');
    const kept = this.#kept.get(key);
    if (kept) {
      // Most recently used last: the first in the map is the one to forget.
      this.#kept.delete(key);
      this.#kept.set(key, kept);
      return kept;
    }
    const checker = new Checker(spec);
    if (this.#kept.size >= this.size) this.#kept.delete(this.#kept.keys().next().value ?? '');
    this.#kept.set(key, checker);
    return checker;
  }
}

/**
 * `POST /api-contract/:id/check`: every stored exchange of the window against the spec, one page
 * at a time; violations are counted by kind, operation, status, place and rule, each with the
 * first `maxExamples` entry ids (oldest first).
 */
export async function checkContract(
  store: Store,
  sourceId: string,
  body: ApiCheckBody,
  now: number,
  checkers: CheckerCache,
): Promise<ApiCheckAnswer> {
  const checker = checkers.of(body.spec);
  const maxExamples = body.maxExamples ?? DEFAULT_EXAMPLES;
  const perOperation = new Map(checker.operations.map((op) => [op, { exchanges: 0, conforming: 0 }]));
  const violations = new Map<string, ApiViolation>();
  let exchanges = 0;
  let conforming = 0;
  for await (const record of eachExchange(store, sourceId, body, now)) {
    exchanges += 1;
    const { op, found } = checker.check(record);
    const counts = op && perOperation.get(op);
    if (counts) counts.exchanges += 1;
    if (found.length === 0) {
      conforming += 1;
      if (counts) counts.conforming += 1;
    }
    // A set of this exchange's places only when it broke more than one rule (most break none).
    const seen = found.length > 1 ? new Set<string>() : undefined;
    for (const f of found) {
      const key = groupKey(f);
      if (seen?.has(key)) continue;
      seen?.add(key);
      const v = violations.get(key);
      if (!v) violations.set(key, { ...f, count: 1, examples: [record.id] });
      else {
        v.count += 1;
        if (v.examples.length < maxExamples) v.examples.push(record.id);
      }
    }
  }
  const operations = [...perOperation].map(([op, c]) => ({ method: op.method, path: op.path, ...c }));
  operations.sort((a, b) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : a.method < b.method ? -1 : a.method > b.method ? 1 : 0,
  );
  const ordered = [...violations.values()].sort((a, b) => b.count - a.count || groupKey(a).localeCompare(groupKey(b)));
  return { exchanges, conforming, operations, violations: ordered };
}
