import { STATUS_CODES } from 'node:http';
import type { JsonValue } from '@tapline/shared';
import { addExchange, type Evidence, newEvidence, scalarOf } from './evidence.js';
import type { ContractExchange } from './records.js';
import { parameterNames, pathKeyOf, TemplateMatcher } from './paths.js';
import { type JsonSchema, schemaOf, type Shape } from './shape.js';

interface PathEvidence {
  /** Every template filed under this key; the document names the path by the first, sorted. */
  readonly templates: Set<string>;
  readonly operations: Map<string, Evidence>;
}

/** Gathers the evidence of a source's exchanges, one record at a time (infer.ts feeds it page by page). */
export class ContractEvidence {
  readonly #paths = new Map<string, PathEvidence>();
  /** Domains by protocol as recorded: the server URLs are written once, in `document`, not per exchange. */
  readonly #servers = new Map<string, Set<string>>();
  readonly #matcher = new TemplateMatcher(scalarOf);
  #entries = 0;
  #firstSeen: string | undefined;
  #lastSeen: string | undefined;

  /** Each template's path, found once: the same few templates come back with every exchange. */
  readonly #byTemplate = new Map<string, PathEvidence>();

  #pathOf(template: string): PathEvidence {
    const key = pathKeyOf(template);
    let path = this.#paths.get(key);
    if (!path) this.#paths.set(key, (path = { templates: new Set(), operations: new Map() }));
    path.templates.add(template);
    this.#byTemplate.set(template, path);
    return path;
  }

  add(record: ContractExchange): void {
    const template = record.route ?? record.pathname.split('?')[0] ?? '/';
    const path = this.#byTemplate.get(template) ?? this.#pathOf(template);
    let evidence = path.operations.get(record.method);
    if (!evidence) path.operations.set(record.method, (evidence = newEvidence(record.createdAt)));
    addExchange(evidence, record, this.#matcher.values(template, record.pathname));
    let domains = this.#servers.get(record.protocol);
    if (!domains) this.#servers.set(record.protocol, (domains = new Set()));
    domains.add(record.domain);
    this.#entries += 1;
    if (this.#firstSeen === undefined || record.createdAt < this.#firstSeen) this.#firstSeen = record.createdAt;
    if (this.#lastSeen === undefined || record.createdAt > this.#lastSeen) this.#lastSeen = record.createdAt;
  }

  /**
   * The OpenAPI 3.1 document of what was gathered. Everything is written in sorted order and
   * nothing depends on the clock, so the same traffic gives the same document byte for byte.
   */
  document(title: string): JsonSchema {
    const paths: JsonSchema = {};
    const operationIds = new Set<string>();
    let authorized = false;
    const named = [...this.#paths.values()].map((p) => ({
      template: [...p.templates].sort()[0] ?? '/',
      operations: p.operations,
    }));
    for (const { template, operations } of named.sort((a, b) => compare(a.template, b.template))) {
      const item: JsonSchema = {};
      for (const method of [...operations.keys()].sort()) {
        const evidence = operations.get(method);
        if (!evidence) continue;
        authorized ||= evidence.authorized > 0;
        item[method.toLowerCase()] = operationOf(
          template,
          method,
          evidence,
          uniqueId(operationIds, operationIdOf(method, template)),
        );
      }
      paths[template] = item;
    }
    const urls = new Set<string>();
    for (const [protocol, domains] of this.#servers)
      for (const domain of domains) urls.add(`${protocol.toLowerCase()}://${domain}`);
    const servers = [...urls].sort().map((url): JsonSchema => ({ url }));
    const doc: JsonSchema = {
      openapi: '3.1.0',
      info: {
        title,
        version: this.#lastSeen?.slice(0, 10) ?? '0.0.0',
        description: `Inferred by Tapline from ${this.#entries} stored exchange${this.#entries === 1 ? '' : 's'}${this.#firstSeen ? ` seen from ${this.#firstSeen} to ${this.#lastSeen ?? ''}` : ''}. Each operation's x-tapline says how many exchanges stand behind it.`,
      },
      servers: servers.length > 0 ? servers : [{ url: '/' }],
      paths,
      'x-tapline': {
        entries: this.#entries,
        ...(this.#firstSeen ? { firstSeen: this.#firstSeen, lastSeen: this.#lastSeen ?? '' } : {}),
      },
    };
    if (authorized) doc.components = { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } };
    return doc;
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const capital = (w: string) => `${w[0]?.toUpperCase() ?? ''}${w.slice(1)}`;

/** `GET /users/{userId}/orders` → `getUsersByUserIdOrders`. */
function operationIdOf(method: string, template: string): string {
  const words = template
    .split(/[^A-Za-z0-9{}]+/)
    .filter(Boolean)
    .map((w) => (w.startsWith('{') ? `By${capital(w.replace(/[{}]/g, ''))}` : w.replace(/[{}]/g, '')));
  return method.toLowerCase() + words.map(capital).join('');
}

function uniqueId(taken: Set<string>, id: string): string {
  let candidate = id;
  for (let n = 2; taken.has(candidate); n++) candidate = `${id}${n}`;
  taken.add(candidate);
  return candidate;
}

/** A parameter's schema: its type and format, never values (a header may carry a key). */
function parameterSchema(shape: Shape, keepEnum: boolean): JsonSchema {
  const schema = schemaOf(shape);
  if (!keepEnum) delete schema.enum;
  return schema;
}

function parametersOf(template: string, evidence: Evidence): JsonSchema[] {
  const parameters: JsonSchema[] = parameterNames(template).map((name, i) => {
    const shape = evidence.pathParams[i];
    const schema = shape ? parameterSchema(shape, false) : { type: 'string' };
    return {
      name,
      in: 'path',
      required: true,
      schema: schema.type === 'integer' || schema.format === 'uuid' ? schema : { type: 'string' },
    };
  });
  for (const [where, map, keepEnum] of [
    ['query', evidence.query, true],
    ['header', evidence.headers, false],
  ] as const) {
    for (const name of [...map.keys()].sort()) {
      const shape = map.get(name);
      if (!shape) continue;
      parameters.push({
        name,
        in: where,
        required: shape.count === evidence.count,
        schema: parameterSchema(shape, keepEnum),
      });
    }
  }
  return parameters;
}

function contentOf(bodies: Evidence['requestBodies']): JsonSchema {
  const content: JsonSchema = {};
  for (const media of [...bodies.keys()].sort()) {
    const body = bodies.get(media);
    if (!body) continue;
    const entry: { [key: string]: JsonValue } = { schema: schemaOf(body.shape) };
    if (body.example !== undefined) entry.example = body.example;
    content[media] = entry;
  }
  return content;
}

function operationOf(template: string, method: string, evidence: Evidence, operationId: string): JsonSchema {
  const operation: JsonSchema = { operationId, summary: `${method} ${template}` };
  const parameters = parametersOf(template, evidence);
  if (parameters.length > 0) operation.parameters = parameters;
  if (evidence.withRequestBody > 0)
    operation.requestBody = {
      required: evidence.withRequestBody === evidence.count,
      content: contentOf(evidence.requestBodies),
    };
  const responses: JsonSchema = {};
  for (const status of [...evidence.responses.keys()].sort((a, b) => a - b)) {
    const seen = evidence.responses.get(status);
    if (!seen) continue;
    const response: JsonSchema = {
      description: STATUS_CODES[status] ?? `Status ${status}`,
      'x-tapline': { count: seen.count },
    };
    if (seen.bodies.size > 0) response.content = contentOf(seen.bodies);
    responses[String(status)] = response;
  }
  operation.responses = responses;
  // An operation's own `security` (an empty list: none) keeps redocly's security-defined rule satisfied.
  operation.security =
    evidence.authorized === 0
      ? []
      : evidence.authorized === evidence.count
        ? [{ bearerAuth: [] }]
        : [{ bearerAuth: [] }, {}];
  operation['x-tapline'] = { count: evidence.count, firstSeen: evidence.firstSeen, lastSeen: evidence.lastSeen };
  return operation;
}
