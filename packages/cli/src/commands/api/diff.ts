import { isRecord } from '@tapline/shared';
import { type ApiChange, diffSchemas } from './diff-schema.js';

type Json = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
/** `/users/{id}` and `/users/{userId}` are one path: a renamed parameter changes nothing on the wire. */
const pathKey = (path: string) => path.replace(/\{[^}]*\}/g, '{}');

interface Operation {
  readonly label: string;
  readonly op: Json;
  readonly shared: unknown[];
}

function operationsOf(doc: Json): Map<string, Operation> {
  const ops = new Map<string, Operation>();
  const paths = isRecord(doc.paths) ? doc.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isRecord(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isRecord(op)) continue;
      ops.set(`${method.toUpperCase()} ${pathKey(path)}`, {
        label: `${method.toUpperCase()} ${path}`,
        op,
        shared: Array.isArray(item.parameters) ? item.parameters : [],
      });
    }
  }
  return ops;
}

function parametersOf(o: Operation): Map<string, Json> {
  const params = new Map<string, Json>();
  const own: unknown[] = Array.isArray(o.op.parameters) ? o.op.parameters : [];
  for (const p of [...o.shared, ...own]) {
    if (isRecord(p) && typeof p.name === 'string' && typeof p.in === 'string' && p.in !== 'path')
      params.set(`${p.in} ${p.in === 'header' ? p.name.toLowerCase() : p.name}`, p);
  }
  return params;
}

const schemaOf = (value: unknown): Json => (isRecord(value) && isRecord(value.schema) ? value.schema : {});

/** The JSON-ish media type of a content map: the schemas compared are those of its JSON body. */
function jsonContent(content: unknown): Json | undefined {
  if (!isRecord(content)) return undefined;
  const key =
    Object.keys(content)
      .sort()
      .find((k) => /json/i.test(k)) ?? Object.keys(content).sort()[0];
  return key === undefined ? undefined : schemaOf(content[key]);
}

function diffParameters(before: Operation, after: Operation, operation: string): ApiChange[] {
  const changes: ApiChange[] = [];
  const o = parametersOf(before);
  const n = parametersOf(after);
  for (const key of [...new Set([...o.keys(), ...n.keys()])].sort()) {
    const was = o.get(key);
    const is = n.get(key);
    if (was && !is) changes.push({ operation, where: key, change: 'parameter removed', breaking: false });
    else if (!was && is)
      changes.push({
        operation,
        where: key,
        change: `parameter added${is.required === true ? ', required' : ''}`,
        breaking: is.required === true,
      });
    else if (was && is) {
      if (was.required !== true && is.required === true)
        changes.push({ operation, where: key, change: 'parameter became required', breaking: true });
      if (was.required === true && is.required !== true)
        changes.push({ operation, where: key, change: 'parameter became optional', breaking: false });
      changes.push(...diffSchemas(schemaOf(was), schemaOf(is), 'request', { operation, where: key }));
    }
  }
  return changes;
}

function diffRequestBody(before: Json, after: Json, operation: string): ApiChange[] {
  const was = isRecord(before.requestBody) ? before.requestBody : undefined;
  const is = isRecord(after.requestBody) ? after.requestBody : undefined;
  const where = 'request body';
  if (!was && is)
    return [
      {
        operation,
        where,
        change: `request body added${is.required === true ? ', required' : ''}`,
        breaking: is.required === true,
      },
    ];
  if (was && !is) return [{ operation, where, change: 'request body removed', breaking: false }];
  if (!was || !is) return [];
  const changes: ApiChange[] = [];
  if (was.required !== true && is.required === true)
    changes.push({ operation, where, change: 'request body became required', breaking: true });
  const o = jsonContent(was.content);
  const n = jsonContent(is.content);
  if (o && n) changes.push(...diffSchemas(o, n, 'request', { operation, where }));
  return changes;
}

function diffResponses(before: Json, after: Json, operation: string): ApiChange[] {
  const changes: ApiChange[] = [];
  const o = isRecord(before.responses) ? before.responses : {};
  const n = isRecord(after.responses) ? after.responses : {};
  for (const status of [...new Set([...Object.keys(o), ...Object.keys(n)])].sort()) {
    const where = `response ${status}`;
    const was = o[status];
    const is = n[status];
    // A client handles the successes it was promised; a missing error answer changes nothing it relies on.
    if (was && !is)
      changes.push({ operation, where, change: 'response status removed', breaking: status.startsWith('2') });
    else if (!was && is) changes.push({ operation, where, change: 'response status added', breaking: false });
    else if (isRecord(was) && isRecord(is)) {
      const os = jsonContent(was.content);
      const ns = jsonContent(is.content);
      if (os && ns) changes.push(...diffSchemas(os, ns, 'response', { operation, where: `${where} body` }));
      else if (os && !ns)
        changes.push({ operation, where: `${where} body`, change: 'response body removed', breaking: true });
    }
  }
  return changes;
}

/**
 * What changed from `before` to `after` (two dereferenced OpenAPI documents): operations,
 * parameters, request and response properties, statuses, types and requiredness, each marked
 * breaking for a client of `before` or not (oasdiff's breaking-change rules are the reference).
 */
export function diffDocuments(before: Json, after: Json): ApiChange[] {
  const o = operationsOf(before);
  const n = operationsOf(after);
  const changes: ApiChange[] = [];
  // By path, then method: a reader finds an endpoint's changes together.
  const byPath = (key: string) => `${key.slice(key.indexOf(' ') + 1)} ${key.slice(0, key.indexOf(' '))}`;
  for (const key of [...new Set([...o.keys(), ...n.keys()])].sort((x, y) => (byPath(x) < byPath(y) ? -1 : 1))) {
    const was = o.get(key);
    const is = n.get(key);
    if (was && !is) changes.push({ operation: was.label, where: '', change: 'operation removed', breaking: true });
    else if (!was && is) changes.push({ operation: is.label, where: '', change: 'operation added', breaking: false });
    else if (was && is) {
      changes.push(
        ...diffParameters(was, is, is.label),
        ...diffRequestBody(was.op, is.op, is.label),
        ...diffResponses(was.op, is.op, is.label),
      );
    }
  }
  return changes;
}
