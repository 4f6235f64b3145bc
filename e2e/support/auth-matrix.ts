import { join } from 'node:path';
import Database from 'better-sqlite3';
import { composeBody } from '@tapline/testkit';
import { admin, type SpawnedDaemon } from './binaries.js';
import { compose, createSource } from './compose.js';
import { badTokens } from './tokens.js';

/**
 * The authorization matrix: every operation of the live `/openapi.json` × token conditions,
 * each cell's status compared with the rules of docs/api.md ("Authentication and scopes",
 * "Errors": 400 before 401, 404 before 403) and with the statuses the operation documents.
 */

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly open: boolean;
  readonly scopes: readonly string[];
  readonly documented: readonly number[];
  readonly success: number;
}

export interface Cell {
  readonly operation: string;
  readonly condition: string;
  readonly expected: number;
  readonly actual: number;
  readonly documented: boolean;
}

/** The ids a request is built from: the owner's, or ones that exist nowhere. */
interface Ids {
  readonly source: string;
  readonly entry: string;
  readonly webhook: string;
  readonly rule: string;
}

interface Condition {
  readonly name: string;
  readonly header: string | undefined;
  /** The status this condition must get from `op` on `ids`; `ids` may be swapped (nonexistent). */
  expected(op: Operation): number;
  readonly ids?: 'missing';
}

const MISSING: Ids = {
  source: '01a1fc8d-93a2-767e-92f3-e5a71388f88b',
  entry: '01a1fc8d-93a2-767e-92f3-e5a71388f88c',
  webhook: '01a1fc8d-93a2-767e-92f3-e5a71388f88d',
  rule: '01a1fc8d-93a2-767e-92f3-e5a71388f88e',
};
const namesSource = (op: Operation) => /\{(trafficSourceId|id|webhookId|ruleId)\}/.test(op.path);

async function operations(url: string): Promise<Operation[]> {
  const doc = (await (await fetch(`${url}/openapi.json`)).json()) as {
    paths: Record<
      string,
      Record<string, { security?: unknown[]; responses: Record<string, unknown>; 'x-tapline-scopes'?: string[] }>
    >;
  };
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const documented = Object.keys(op.responses).map(Number);
      return {
        method: method.toUpperCase(),
        path,
        open: (op.security ?? []).length === 0,
        scopes: op['x-tapline-scopes'] ?? [],
        documented,
        success: documented.find((s) => s < 300) ?? 200,
      };
    }),
  );
}

/**
 * Ingest routes of other clients' formats name their source in the body (`/ingest-log`'s
 * `trafficSourceId`) or in a header or `service.name` (`/v1/traces`), so the matrix's rule that a
 * source is named in the path does not apply; their authorization (401, 403 by scope, owner and
 * restriction, 404 before 403) is tested in ingest-log/routes.test.ts and otlp/routes.test.ts.
 */
const SOURCE_OUTSIDE_PATH = new Set(['POST /ingest-log', 'POST /v1/traces']);

let unique = 0;
const LOGINS_PER_MINUTE = 30;
const SAMPLE = new Set([
  'no Authorization header',
  'Basic scheme',
  'not a JWT',
  'forged signature',
  'read token raised to full scope',
  'alg none, no signature',
  'alg HS512',
  'alg RS256',
]);

/** How to call each operation; an operation the document lists and this table lacks fails the matrix. */
function request(
  op: Operation,
  ids: Ids,
  owner: { url: string; token: string },
): Promise<{ path: string; body?: unknown }> | { path: string; body?: unknown } {
  const n = ++unique;
  const fill = (values: Record<string, string>) =>
    op.path.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? `{${name}}`);
  const key = `${op.method} ${op.path}`;
  switch (key) {
    case 'GET /healthz':
    case 'GET /openapi.json':
    case 'GET /auth/me':
    case 'DELETE /auth/token':
    case 'GET /traffic-source':
    case 'GET /metrics':
      return { path: op.path };
    case 'POST /auth/token':
      return { path: op.path, body: { email: 'ana@example.com', password: 'correct horse battery' } };
    case 'POST /auth/password':
      // ana's own password, kept as it is; the owner (no password yet) gets it as a first one.
      return {
        path: op.path,
        body: { currentPassword: 'correct horse battery', newPassword: 'correct horse battery' },
      };
    case 'POST /traffic-source':
      return { path: op.path, body: { name: `matrix-${n}`, trafficDomain: 'matrix.example.com' } };
    case 'PATCH /traffic-source/{trafficSourceId}':
      return { path: fill({ trafficSourceId: ids.source }), body: { name: `renamed-${n}` } };
    case 'DELETE /traffic-source/{trafficSourceId}':
      // Deleting must not take the shared fixtures with it: a fresh source of the owner's, unless the ids are the missing ones.
      return ids === MISSING
        ? { path: fill({ trafficSourceId: ids.source }) }
        : createSource(owner.url, owner.token, `doomed-${n}`).then((id) => ({ path: fill({ trafficSourceId: id }) }));
    case 'GET /core-log/{trafficSourceId}':
    case 'GET /http-traffic/{trafficSourceId}':
    case 'GET /domains/{trafficSourceId}':
    case 'GET /pathnames/{trafficSourceId}':
    case 'GET /webhooks/{id}':
    case 'GET /stats/{trafficSourceId}':
    case 'GET /routes/{trafficSourceId}':
    case 'GET /routes/{trafficSourceId}/rules':
    case 'GET /routes/{trafficSourceId}/suggestions':
    case 'GET /api-contract/{trafficSourceId}/openapi':
      return { path: fill({ trafficSourceId: ids.source, id: ids.source }) };
    case 'POST /routes/{trafficSourceId}/rules':
      return { path: fill({ trafficSourceId: ids.source }), body: { template: `/matrix-${n}/{id}` } };
    case 'DELETE /routes/{trafficSourceId}/rules/{ruleId}':
      return ids === MISSING
        ? { path: fill({ trafficSourceId: ids.source, ruleId: ids.entry }) }
        : newRouteRule(owner, ids.source, n).then((ruleId) => ({
            path: fill({ trafficSourceId: ids.source, ruleId }),
          }));
    case 'GET /http-traffic/{trafficSourceId}/stream':
      return { path: fill({ trafficSourceId: ids.source }) };
    case 'POST /core-log/{trafficSourceId}':
      return { path: fill({ trafficSourceId: ids.source }), body: { title: `matrix ${n}` } };
    case 'POST /webhooks/{id}':
      return {
        path: fill({ id: ids.source }),
        body: { type: 'http', level: 'fatal', value: `http://127.0.0.1:9/hook/${n}` },
      };
    case 'DELETE /webhooks/{id}':
      return ids === MISSING
        ? { path: fill({ id: ids.webhook }) }
        : newWebhook(owner, ids.source, n).then((id) => ({ path: fill({ id }) }));
    case 'GET /webhooks/{webhookId}/deliveries':
    case 'POST /webhooks/{webhookId}/test':
      return { path: fill({ webhookId: ids.webhook }) };
    case 'GET /alerts/{trafficSourceId}':
    case 'GET /alerts/{trafficSourceId}/history':
      return { path: fill({ trafficSourceId: ids.source }) };
    case 'POST /alerts/{trafficSourceId}':
      return { path: fill({ trafficSourceId: ids.source }), body: { when: `p95 > ${n}ms`, webhookIds: [ids.webhook] } };
    case 'DELETE /alerts/rules/{ruleId}':
      return ids === MISSING
        ? { path: fill({ ruleId: ids.rule }) }
        : newAlertRule(owner, ids.source, ids.webhook).then((ruleId) => ({ path: fill({ ruleId }) }));
    case 'POST /alerts/rules/{ruleId}/test':
      return { path: fill({ ruleId: ids.rule }) };
    case 'POST /http-traffic-record/{trafficSourceId}':
      return { path: fill({ trafficSourceId: ids.source }), body: composeBody(ids.source) };
    case 'POST /http-traffic-record/{trafficSourceId}/batch':
      return { path: fill({ trafficSourceId: ids.source }), body: [composeBody(ids.source)] };
    case 'GET /http-traffic/{trafficSourceId}/{id}':
      return { path: fill({ trafficSourceId: ids.source, id: ids.entry }) };
    case 'GET /http-traffic/{trafficSourceId}/export.har':
      return { path: fill({ trafficSourceId: ids.source }) };
    case 'POST /api-contract/{trafficSourceId}/check':
      return {
        path: fill({ trafficSourceId: ids.source }),
        body: { spec: { openapi: '3.1.0', info: { title: 'matrix', version: '1' }, paths: {} } },
      };
    default:
      throw new Error(`the authorization matrix has no request for ${key}: add one`);
  }
}

async function newRouteRule(owner: { url: string; token: string }, sourceId: string, n: number): Promise<string> {
  const response = await fetch(`${owner.url}/routes/${sourceId}/rules`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ template: `/doomed-${n}/{id}` }),
  });
  if (response.status !== 201) throw new Error(`rule for the matrix: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

async function newWebhook(owner: { url: string; token: string }, sourceId: string, n: number): Promise<string> {
  const response = await fetch(`${owner.url}/webhooks/${sourceId}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'http', level: 'fatal', value: `http://127.0.0.1:9/doomed/${n}` }),
  });
  return ((await response.json()) as { id: string }).id;
}

async function newAlertRule(
  owner: { url: string; token: string },
  sourceId: string,
  webhookId: string,
): Promise<string> {
  const response = await fetch(`${owner.url}/alerts/${sourceId}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ when: 'error_rate > 5%', webhookIds: [webhookId] }),
  });
  return ((await response.json()) as { id: string }).id;
}

/** Sends one cell's request; a stream's 200 is taken from its head and the stream closed. */
async function send(
  url: string,
  op: Operation,
  target: { path: string; body?: unknown },
  header: string | undefined,
): Promise<number> {
  const controller = new AbortController();
  const headers: Record<string, string> = {
    ...(header !== undefined ? { authorization: header } : {}),
    ...(target.body !== undefined ? { 'content-type': 'application/json' } : {}),
  };
  const response = await fetch(`${url}${target.path}`, {
    method: op.method,
    headers,
    signal: controller.signal,
    ...(target.body !== undefined ? { body: JSON.stringify(target.body) } : {}),
  });
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) controller.abort();
  else await response.arrayBuffer();
  return response.status;
}

export interface Matrix {
  readonly cells: readonly Cell[];
  /** Sources each listing token saw that it must not see. */
  readonly leaks: readonly string[];
}

/** `sample`: a few bad tokens of each kind (the regular suite); `all`: every one (`pnpm test:soak`). */
export async function authorizationMatrix(daemon: SpawnedDaemon, badTokenSet: 'sample' | 'all'): Promise<Matrix> {
  const { url, home, token } = daemon;
  const owner = { url, token };
  const source = await createSource(url, token, 'matrix');
  const other = await createSource(url, token, 'matrix-other');
  const webhook = await newWebhook(owner, source, 0);
  const ids: Ids = {
    source,
    entry: (await compose(url, token, source)).id,
    webhook,
    rule: await newAlertRule(owner, source, webhook),
  };
  const make = (email: string, ...args: string[]) => admin(home, ['token', 'create', email, ...args]);
  await Promise.all([
    admin(home, ['user', 'add', 'ana@example.com', '--password-stdin'], 'correct horse battery'),
    admin(home, ['user', 'add', 'gone@example.com']),
  ]);
  // Each admin command is a process of its own: start them together, SQLite's WAL lets them write in turn.
  const [read, ingest, limited, ana, expired, revoked, gone] = await Promise.all([
    make('local@localhost', '--scope', 'read'),
    make('local@localhost', '--scope', 'ingest'),
    make('local@localhost', '--source', other),
    make('ana@example.com'),
    make('local@localhost', '--expires', '1s'),
    make('local@localhost'),
    make('gone@example.com'),
  ]);
  await admin(home, ['token', 'revoke', jtiOf(revoked)]);
  const db = new Database(join(home, 'tapline.db'));
  db.prepare('delete from users where email = ?').run('gone@example.com');
  db.close();
  const me = (t: string) =>
    fetch(`${url}/auth/me`, { headers: { authorization: `Bearer ${t}` } }).then((r) => r.status);
  for (const deadline = Date.now() + 5_000; (await me(expired)) !== 401; await new Promise((r) => setTimeout(r, 100))) {
    if (Date.now() > deadline) throw new Error('the token made with --expires 1s still works after 5 s');
  }

  const allowed = (op: Operation, scope: string) => op.scopes.includes(scope);
  const conditions: Condition[] = [
    ...badTokens(token, read)
      .filter((bad) => badTokenSet === 'all' || SAMPLE.has(bad.name))
      .map((bad) => ({
        name: bad.name,
        header: bad.header,
        expected: (op: Operation) => (op.open ? op.success : bad.status),
      })),
    { name: 'expired', header: `Bearer ${expired}`, expected: (op) => (op.open ? op.success : 401) },
    { name: 'revoked', header: `Bearer ${revoked}`, expected: (op) => (op.open ? op.success : 401) },
    { name: 'user deleted', header: `Bearer ${gone}`, expected: (op) => (op.open ? op.success : 401) },
    { name: 'owner, full scope', header: `Bearer ${token}`, expected: (op) => op.success },
    { name: 'owner, scheme in lower case', header: `bearer ${token}`, expected: (op) => op.success },
    {
      name: 'owner, ids that do not exist',
      header: `Bearer ${token}`,
      ids: 'missing',
      expected: (op) => (namesSource(op) ? 404 : op.success),
    },
    {
      name: 'read scope',
      header: `Bearer ${read}`,
      expected: (op) => (op.open || allowed(op, 'read') ? op.success : 403),
    },
    // 404 before 403: a scope that may not call the route still learns first that the id does not exist.
    {
      name: 'read scope, ids that do not exist',
      header: `Bearer ${read}`,
      ids: 'missing',
      expected: (op) => (namesSource(op) && !op.open ? 404 : op.open || allowed(op, 'read') ? op.success : 403),
    },
    {
      name: 'ingest scope, ids that do not exist',
      header: `Bearer ${ingest}`,
      ids: 'missing',
      expected: (op) => (namesSource(op) && !op.open ? 404 : op.open || allowed(op, 'ingest') ? op.success : 403),
    },
    {
      name: 'ingest scope',
      header: `Bearer ${ingest}`,
      expected: (op) => (op.open || allowed(op, 'ingest') ? op.success : 403),
    },
    {
      name: 'restricted to another source',
      header: `Bearer ${limited}`,
      // Like the list of sources, /metrics answers a restricted token with its one source's series.
      expected: (op) =>
        op.open ||
        op.path === '/auth/me' ||
        revokesCaller(op) ||
        (op.method === 'GET' && (op.path === '/traffic-source' || op.path === '/metrics'))
          ? op.success
          : 403,
    },
    {
      name: "another user's token",
      header: `Bearer ${ana}`,
      expected: (op) => (namesSource(op) && !op.open ? 403 : op.success),
    },
    {
      name: "another user's token, ids that do not exist",
      header: `Bearer ${ana}`,
      ids: 'missing',
      expected: (op) => (namesSource(op) && !op.open ? 404 : op.success),
    },
  ];

  const cells: Cell[] = [];
  let logins = 0;
  for (const op of (await operations(url)).filter((op) => !SOURCE_OUTSIDE_PATH.has(`${op.method} ${op.path}`))) {
    // Conditions of one operation run side by side; log-ins one by one, as their limit counts them.
    const together = !(op.method === 'POST' && op.path === '/auth/token');
    const run = async (condition: Condition): Promise<Cell> => {
      const target = await request(op, condition.ids === 'missing' ? MISSING : ids, owner);
      const actual = await send(url, op, target, condition.header);
      // Log-ins are limited to 30 a minute per address (docs/api.md): the 31st is a documented 429.
      const limited = !together && ++logins > LOGINS_PER_MINUTE;
      const expected = limited ? 429 : condition.expected(op);
      return {
        operation: `${op.method} ${op.path}`,
        condition: condition.name,
        expected,
        actual,
        documented: op.documented.includes(actual),
      };
    };
    // DELETE /auth/token revokes the token that calls it: where it would succeed it would end the
    // matrix's shared tokens, so only its refusals are checked here (its success: auth.test.ts).
    const applicable = revokesCaller(op)
      ? conditions.filter((condition) => condition.expected(op) !== op.success)
      : conditions;
    if (together) cells.push(...(await Promise.all(applicable.map(run))));
    else for (const condition of applicable) cells.push(await run(condition));
  }
  const listed = async (t: string) =>
    (
      (await (
        await fetch(`${url}/traffic-source?limit=1000`, { headers: { authorization: `Bearer ${t}` } })
      ).json()) as { data: Array<{ id: string }> }
    ).data.map((s) => s.id);
  const leaks = [
    ...(await listed(ana)).filter((id) => id === source || id === other).map((id) => `ana sees ${id}`),
    ...(await listed(limited)).filter((id) => id !== other).map((id) => `the restricted token sees ${id}`),
  ];
  return { cells, leaks };
}

/** The token id (`jti`) of a JWT, read from its payload without verifying it. */
function jtiOf(jwt: string): string {
  const claims: unknown = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString());
  if (typeof claims === 'object' && claims !== null && 'jti' in claims && typeof claims.jti === 'string')
    return claims.jti;
  throw new Error('the token carries no jti');
}

/** The one operation whose success changes the caller's own token. */
function revokesCaller(op: Operation): boolean {
  return op.method === 'DELETE' && op.path === '/auth/token';
}
