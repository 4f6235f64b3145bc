import { contract, ErrorBody, type Endpoint, isRecord } from '@tapline/shared';
import { type JsonSchema, schemaOf } from './json-schema.js';

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid input, or authentication token missing',
  401: 'Token invalid, expired or revoked',
  403: 'Not allowed on this resource (owner, scope or source restriction)',
  404: 'Not found',
  409: 'Conflicts with an existing resource',
  413: 'Request body too large',
  415: 'Request body is not JSON',
  429: 'Too many attempts; wait a minute',
  500: 'Internal Server Error',
};

type Components = Record<string, JsonSchema>;

function parameters(schema: Endpoint['query'], where: 'path' | 'query', components: Components, neutralNames = false) {
  if (!schema) return [];
  const json = schemaOf(schema, 'input', components);
  const required: unknown[] = Array.isArray(json.required) ? json.required : [];
  return Object.entries(isRecord(json.properties) ? json.properties : {}).map(([name, property]) => ({
    name: neutralNames ? 'id' : name,
    ...(neutralNames ? { description: `the ${name}` } : {}),
    in: where,
    required: where === 'path' || required.includes(name),
    schema: property,
  }));
}

/**
 * OpenAPI 3.1 has no schema for each event of a stream (3.2's `itemSchema`): the stream is a
 * string, and `x-tapline-event` carries the schema of each event's `data` line.
 */
const eventStream = (events: NonNullable<Endpoint['events']>, components: Components) => ({
  description: 'Server-Sent Events; the data line of each entry event is the JSON of `x-tapline-event`',
  content: {
    'text/event-stream': { schema: { type: 'string' }, 'x-tapline-event': schemaOf(events, 'output', components) },
  },
});

/** The same schema under each media type the endpoint speaks (JSON unless it says otherwise). */
const media = (e: Endpoint, schema: JsonSchema) =>
  Object.fromEntries((e.media ?? ['application/json']).map((type) => [type, { schema }]));

function operation(name: string, e: Endpoint, neutralPathNames: boolean, components: Components) {
  const errors = new Set<number>([
    ...(e.scopes ? [400, 401] : []),
    ...(e.body ? [400, 413, 415] : []),
    ...(e.params || e.query ? [400] : []),
    ...e.errors,
    500,
  ]);
  const responses: Record<string, unknown> = {
    [e.status]: e.events
      ? eventStream(e.events, components)
      : e.response
        ? { description: 'Success', content: media(e, schemaOf(e.response, 'output', components)) }
        : { description: 'Success, empty body' },
  };
  for (const status of [...errors].sort()) {
    responses[status] = {
      description: ERROR_TEXT[status] ?? 'Error',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return {
    operationId: name,
    summary: e.summary,
    ...(e.description ? { description: e.description } : {}),
    tags: [e.tag],
    security: e.scopes ? [{ bearerAuth: [] }] : [],
    ...(e.scopes ? { 'x-tapline-scopes': e.scopes } : {}),
    parameters: [
      ...parameters(e.params, 'path', components, neutralPathNames),
      ...parameters(e.query, 'query', components),
    ],
    ...(e.body ? { requestBody: { required: true, content: media(e, schemaOf(e.body, 'input', components)) } } : {}),
    responses,
  };
}

const toTemplate = (path: string) => path.replace(/:([A-Za-z]+)/g, '{$1}');
const shape = (path: string) => path.replace(/:[A-Za-z]+/g, ':');

/**
 * OpenAPI forbids two templated paths that differ only in parameter names; the spec has
 * GET /webhooks/:trafficSourceId and DELETE /webhooks/:webhookId. Such paths share one template
 * with a neutral `{id}`, and each operation says what its id is.
 */
function openApiPath(path: string, endpoints: Record<string, Endpoint>): string {
  const clashes = Object.values(endpoints).some((other) => other.path !== path && shape(other.path) === shape(path));
  return clashes ? path.replace(/:[A-Za-z]+/g, '{id}') : toTemplate(path);
}

/**
 * OpenAPI 3.1, generated from the same contract the daemon mounts and validates with. Its
 * `servers` is added per answer (routes.ts): the address the daemon answered on.
 */
export function openApiDocument(version: string, endpoints: Record<string, Endpoint> = contract) {
  const components: Components = { Error: schemaOf(ErrorBody, 'output', {}) };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [name, e] of Object.entries(endpoints)) {
    const path = openApiPath(e.path, endpoints);
    (paths[path] ??= {})[e.method.toLowerCase()] = operation(name, e, path !== toTemplate(e.path), components);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tapline',
      version,
      description:
        'Self-hosted HTTP traffic monitor. Interface version 3.0.1-beta.72 with the extensions of docs/api.md.',
    },
    paths,
    components: {
      schemas: components,
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    },
  };
}
