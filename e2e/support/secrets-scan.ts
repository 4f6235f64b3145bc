import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { execa } from 'execa';
import { admin, cleanEnv, cli, startDaemon, TAPLINE, tempHome } from './binaries.js';
import { createSource } from './compose.js';
import { rawConnect } from './raw-http.js';
import { plantThroughCaptureClients } from './secrets-capture.js';
import { EXTRA_REDACT_KEY, recordWithSecrets, Secrets } from './secrets-plant.js';
import { decodedPayloads } from './secrets-rows.js';
import { until } from '@tapline/testkit';

/**
 * The secrets scan of issue 11, against the built binaries under umask 000: secrets are planted
 * through every way in (passwords, tokens good and forged, webhook secrets, records with values
 * under every redacted name, by single compose, small batch, worker-thread batch and the CLI;
 * issue 24: bodies past the capture limit, cut JSON, forms and multipart through every capture
 * client, secrets-capture.ts), everything that comes out is collected (trace logs, every answer,
 * the event stream, webhook payloads, CLI output, HAR exports, the raw database files and their
 * decoded rows), and every planted value is searched for; `body~` must find none of them.
 */
export interface ScanReport {
  readonly planted: number;
  /** `label in place` for each secret found where it must not be. */
  readonly leaks: readonly string[];
  /** Where the scan looked, with how many bytes it read there. */
  readonly places: Readonly<Record<string, number>>;
  /** The places that show the recorded traffic (a `/secrets/` path), so the scan read something real. */
  readonly showTraffic: readonly string[];
  /** Refused authentications the logs recorded: the lines most likely to carry a token. */
  readonly auditLines: number;
  /** Octal modes of the files that hold secrets by design. */
  readonly modes: Readonly<Record<string, string>>;
}

/** Values that a place holds by design: the database keeps the signing key and webhook secrets. */
const BY_DESIGN: Readonly<Record<string, readonly string[]>> = { database: ['signing key', 'webhook secret'] };

export async function scanForSecrets(records: number): Promise<ScanReport> {
  const secrets = new Secrets();
  const places = new Map<string, string>();
  const add = (place: string, text: string) => places.set(place, (places.get(place) ?? '') + text + '\n');
  const root = tempHome('tapline-secrets-');
  const home = join(root.path, 'home');
  const cliHome = join(root.path, 'cli');
  const hooks = await webhookReceiver();
  const umask = process.umask(0);
  try {
    const daemon = await startDaemon(home, [
      '--log-level',
      'trace',
      '--allow-private-webhooks',
      '--redact-keys',
      EXTRA_REDACT_KEY,
    ]);
    const { url } = daemon;
    const token = secrets.watch('local token', daemon.token);
    const call = async (method: string, path: string, body?: unknown, bearer = token) => {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${bearer}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
    };

    // Who may come in: a password user, the tokens the admin commands issue, forged ones.
    const password = secrets.make('password');
    await admin(home, ['user', 'add', 'sec@example.com', '--password-stdin'], password);
    add(
      'answers',
      (await call('POST', '/auth/token', { email: 'sec@example.com', password: secrets.make('wrong password') }, ''))
        .text,
    );
    secrets.watch(
      'login token',
      (await call('POST', '/auth/token', { email: 'sec@example.com', password }, '')).json().token as string,
    );
    const sourceId = await createSource(url, token, 'secrets');
    const readToken = secrets.watch(
      'read token',
      await admin(home, ['token', 'create', 'local@localhost', '--scope', 'read']),
    );
    const ingestToken = secrets.watch(
      'ingest token',
      await admin(home, ['token', 'create', 'local@localhost', '--scope', 'ingest', '--source', sourceId]),
    );
    const forged = secrets.watch(
      'forged token',
      `${token.slice(0, token.lastIndexOf('.') + 1)}${secrets.make('forged signature')}`,
    );
    for (const bad of [forged, secrets.make('garbage bearer'), `${readToken}x`])
      add('answers', (await call('GET', `/http-traffic/${sourceId}`, undefined, bad)).text);
    add('answers', (await call('DELETE', `/traffic-source/${sourceId}`, undefined, readToken)).text);
    add('cli', await cliText(['login', '--email', 'sec@example.com', '--password-stdin'], cliHome, url, password));
    secrets.watch(
      'cli login token',
      (JSON.parse(readFileSync(join(cliHome, 'credentials'), 'utf8')) as { token: string }).token,
    );

    // Where traffic goes out: an open event stream and an http webhook on loopback.
    const stream = await rawConnect(url);
    stream.socket.write(
      `GET /http-traffic/${sourceId}/stream HTTP/1.1\r\nHost: tapline\r\nAuthorization: Bearer ${readToken}\r\n\r\n`,
    );
    await stream.waitFor(/event: ready/);
    const webhook = await call('POST', `/webhooks/${sourceId}`, { type: 'http', level: 'info', value: hooks.url });
    secrets.watch('webhook secret', webhook.json().secret as string);

    // Records with secrets, through every path in.
    const ids: string[] = [];
    for (let i = 0; i < records; i++) {
      const way = i % 4;
      if (way === 0) {
        const answer = await call(
          'POST',
          `/http-traffic-record/${sourceId}`,
          recordWithSecrets(secrets, sourceId, `single ${i}`),
          ingestToken,
        );
        add('answers', answer.text);
        ids.push(answer.json().id as string);
      } else if (way === 3) {
        add(
          'cli',
          await cliText(
            ['record', sourceId],
            cliHome,
            url,
            JSON.stringify(recordWithSecrets(secrets, sourceId, `cli ${i}`)),
            ingestToken,
          ),
        );
      } else {
        // way 2 pads the batch past the size at which a worker thread prepares it.
        const items = [recordWithSecrets(secrets, sourceId, `batch ${i}`, way === 2 ? 'p'.repeat(70_000) : '')];
        const answer = await call('POST', `/http-traffic-record/${sourceId}/batch`, items, ingestToken);
        add('answers', answer.text);
        ids.push(...(answer.json().ids as string[]));
      }
    }
    const captured = await plantThroughCaptureClients(
      secrets,
      { url, ingestToken, sourceId, workDir: root.path },
      Math.max(1, Math.floor(records / 8)),
    );
    // Each record is one event with an `id:` (the ready event has none on an empty source).
    const stored = records + captured.entries;
    await until(
      () => (stream.received().match(/^id: /gm)?.length ?? 0) >= stored,
      'the stream to carry every record',
      30_000,
    );
    await until(() => hooks.bodies.length > 0, 'a webhook delivery', 20_000);

    // Every read the API offers, the CLI's views of it, the stream and the webhooks so far.
    const reads = [
      '/healthz',
      '/openapi.json',
      '/auth/me',
      '/traffic-source',
      `/traffic-source/${sourceId}`,
      `/http-traffic/${sourceId}?limit=1000`,
      `/domains/${sourceId}`,
      `/pathnames/${sourceId}`,
      `/core-log/${sourceId}`,
      `/webhooks/${sourceId}`,
    ];
    const entries = await listEntries(call, sourceId);
    for (const path of [...reads, ...entries.map((e) => `/http-traffic/${sourceId}/${e.id}`)])
      add('answers', (await call('GET', path)).text);
    add('exports', (await call('GET', `/http-traffic/${sourceId}/export.har`)).text);
    add('exports', await cliText(['traffic', 'export', sourceId, '--har'], cliHome, url, undefined, token));
    const found: string[] = [];
    // Forty values a query (the filter takes up to 100 conditions); one at a time only to name what a query found.
    const matches = async (values: readonly string[]) => {
      const answer = await call(
        'GET',
        `/http-traffic/${sourceId}?limit=1&q=${encodeURIComponent(values.map((v) => `body~${v}`).join(' or '))}`,
      );
      return answer.status !== 200 || (answer.json().data as unknown[]).length > 0;
    };
    for (let i = 0; i < captured.firstRound.length; i += 40) {
      const values = captured.firstRound.slice(i, i + 40);
      if (!(await matches(values))) continue;
      for (const value of values) if (await matches([value])) found.push(`${labelOf(secrets, value)} found by q=body~`);
    }
    for (const value of captured.probes) {
      if (
        (
          await cliText(
            ['traffic', 'list', sourceId, '--where', `body~${value}`, '--json'],
            cliHome,
            url,
            undefined,
            token,
          )
        ).includes('/secrets/')
      )
        found.push(`${labelOf(secrets, value)} found by --where`);
    }
    // The login's user owns nothing: `status` and `auth` show the login, the reads use the owner's token.
    for (const args of [['status'], ['auth']]) add('cli', await cliText(args, cliHome, url));
    const reading = [
      ['sources', 'list'],
      ['traffic', 'list', sourceId],
      ['traffic', 'list', sourceId, '--json'],
      ['webhooks', 'list', sourceId],
      ['logs', sourceId],
    ];
    // Captured entries too (the API's answers above show every entry; each CLI run costs seconds).
    const shownPaths = ['proxy/json', 'node/parsed-json'].map((p) => `/secrets/capture/${p}`);
    const shown = [...ids.slice(0, 3), ...shownPaths.map((p) => entries.find((e) => e.pathname === p)?.id ?? p)];
    for (const args of [...reading, ...shown.map((id) => ['traffic', 'show', sourceId, id, '--json'])])
      add('cli', await cliText(args, cliHome, url, undefined, token));
    add('cli', await tailOnce(cliHome, url, token, sourceId));
    add('stream', stream.received());
    stream.socket.destroy();
    add('webhooks', hooks.bodies.join('\n'));

    for (const file of ['tapline.db', 'tapline.db-wal', 'tapline.db-shm'])
      add('database', readIfThere(join(home, file)));
    const modes = modesOf(home, cliHome);
    secrets.watch('signing key', signingKey(join(home, 'tapline.db')));
    await daemon.stop();
    const run = await daemon.process;
    add('logs', `${String(run.stdout ?? '')}${String(run.stderr ?? '')}`);
    for (const file of ['tapline.db', 'tapline.db-wal']) add('database', readIfThere(join(home, file)));
    add('database rows', decodedPayloads(join(home, 'tapline.db')));
    return {
      planted: secrets.planted.size,
      leaks: [...findLeaks(secrets, places), ...found],
      places: Object.fromEntries([...places].map(([k, v]) => [k, v.length])),
      showTraffic: [...places]
        .filter(([, text]) => text.includes('/secrets/'))
        .map(([place]) => place)
        .sort(),
      auditLines: places.get('logs')?.match(/"authentication_failed"/g)?.length ?? 0,
      modes,
    };
  } finally {
    process.umask(umask);
    await hooks.close();
    root.remove();
  }
}

/** Every entry of the source, newest first, a page of 1,000 at a time. */
async function listEntries(
  call: (method: string, path: string) => Promise<{ json(): Record<string, unknown> }>,
  sourceId: string,
) {
  const entries: { id: string; pathname: string }[] = [];
  for (let page = 1; ; page++) {
    const data = (await call('GET', `/http-traffic/${sourceId}?limit=1000&page=${page}`)).json().data as {
      id: string;
      pathname: string;
    }[];
    entries.push(...data);
    if (data.length < 1000) return entries;
  }
}

const labelOf = (secrets: Secrets, value: string) => [...secrets.planted].find(([, v]) => v === value)?.[0] ?? value;

function findLeaks(secrets: Secrets, places: ReadonlyMap<string, string>): string[] {
  const leaks: string[] = [];
  for (const [label, value] of secrets.planted) {
    for (const [place, text] of places) {
      if (BY_DESIGN[place]?.includes(label)) continue;
      if (text.includes(value)) leaks.push(`${label} in ${place}`);
    }
  }
  return leaks;
}

/** The CLI's stdout and stderr; `input` goes to its stdin. Its home has the login's credentials. */
async function cliText(
  args: readonly string[],
  home: string,
  url: string,
  input?: string,
  token?: string,
): Promise<string> {
  const result = await cli(['--url', url, ...(token ? ['--token', token] : []), ...args], {
    home,
    ...(input !== undefined ? { input } : {}),
  });
  return `${result.stdout}\n${result.stderr}`;
}

/** `tapline traffic tail` prints the last entries, then follows until stopped. */
async function tailOnce(home: string, url: string, token: string, sourceId: string): Promise<string> {
  const child = execa(
    'node',
    [TAPLINE, '--home', home, '--url', url, '--token', token, 'traffic', 'tail', sourceId, '--lines', '50'],
    { env: cleanEnv(), extendEnv: false, reject: false, stdin: 'ignore' },
  );
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await until(() => out.includes('/secrets/'), 'tail to print entries', 15_000);
  child.kill('SIGINT');
  const done = await child;
  return `${out}\n${String(done.stderr)}`;
}

const readIfThere = (file: string) => (existsSync(file) ? readFileSync(file).toString('latin1') : '');

function modesOf(home: string, cliHome: string): Record<string, string> {
  const files = {
    home,
    token: join(home, 'token'),
    'daemon.json': join(home, 'daemon.json'),
    'tapline.db': join(home, 'tapline.db'),
    'tapline.db-wal': join(home, 'tapline.db-wal'),
    'tapline.db-shm': join(home, 'tapline.db-shm'),
    'cli credentials': join(cliHome, 'credentials'),
  };
  return Object.fromEntries(
    Object.entries(files).map(([name, path]) => [
      name,
      existsSync(path) ? (statSync(path).mode & 0o777).toString(8) : 'missing',
    ]),
  );
}

function signingKey(file: string): string {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("SELECT value FROM settings WHERE key = 'jwt_signing_key'").get() as { value: string }).value;
  } finally {
    db.close();
  }
}

async function webhookReceiver() {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(`${JSON.stringify(req.headers)}\n${Buffer.concat(chunks).toString('utf8')}`);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    bodies,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
