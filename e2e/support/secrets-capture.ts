import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import express from 'express';
import { cli, startProxy } from './binaries.js';
import { cutAsSent, formOverLimit, jsonOverLimit, multipartOverLimit, type PlantedBody } from './secrets-bodies.js';
import { EXTRA_REDACT_KEY, type Secrets } from './secrets-plant.js';

type NodeModule = typeof import('../../packages/node/src/index.js');
/** The bundle a user installs, not the sources the workspace resolves. */
const NODE_BUNDLE = pathToFileURL(
  join(fileURLToPath(new URL('.', import.meta.url)), '..', '..', 'packages', 'node', 'dist', 'index.js'),
).href;

export interface CaptureTarget {
  readonly url: string;
  readonly ingestToken: string;
  readonly sourceId: string;
  /** A folder for the CLI's home and the HAR file. */
  readonly workDir: string;
}

/** What went in: how many entries to wait for, and the values to look for with `body~`. */
export interface CapturePlanted {
  readonly entries: number;
  /** A value of a proxy body and one a cut split, for the CLI's `--where 'body~…'` (the API's `q=` takes the rest). */
  readonly probes: readonly string[];
  /** Every value planted in the first round, for the API's `q=body~…`. */
  readonly firstRound: readonly string[];
}

/**
 * Bodies past the capture limit, cut JSON, forms and multipart, with secrets, through every client
 * that captures or composes bodies: the built `tapline proxy` and the built `@tapline/node` (its
 * own reading and after a body parser) in front of an echo app, so each body is recorded as
 * request and as response (gzip-encoded once); direct composes and batches of string bodies as a
 * client that cut without redacting sends them; the Arkyn SDK's `/ingest-log`; OTLP (headers and
 * query: spans carry no bodies); `tapline import` of a HAR file.
 */
export async function plantThroughCaptureClients(
  secrets: Secrets,
  target: CaptureTarget,
  rounds: number,
): Promise<CapturePlanted> {
  const app = await listen(echoServer());
  const node = (await import(NODE_BUNDLE)) as NodeModule;
  const recorder = node.tapline({
    url: target.url,
    token: target.ingestToken,
    source: target.sourceId,
    queue: { flushIntervalMs: 20 },
  });
  const nodeApp = await listen(createServer(nodeEcho(recorder)));
  const proxy = await startProxy([
    '--url',
    target.url,
    '--token',
    target.ingestToken,
    'proxy',
    '--source',
    target.sourceId,
    '--target',
    app.url,
    '--listen',
    '127.0.0.1:0',
  ]);
  const probes: string[] = [];
  const firstRound: string[] = [];
  let entries = 0;
  try {
    for (let round = 0; round < rounds; round++) {
      const before = new Set(secrets.planted.keys());
      const bodies = (tag: string) => ({
        json: jsonOverLimit(secrets, tag, EXTRA_REDACT_KEY),
        form: formOverLimit(secrets, tag, EXTRA_REDACT_KEY),
        multipart: multipartOverLimit(secrets, tag, EXTRA_REDACT_KEY),
      });
      for (const [client, base] of [
        ['proxy', proxy.url],
        ['node', nodeApp.url],
      ] as const) {
        const sent = bodies(`${client} ${round}`);
        const gzipped = jsonOverLimit(secrets, `${client} ${round} gzip`, EXTRA_REDACT_KEY);
        const paths: [string, PlantedBody][] = [
          ['json', sent.json],
          ['form', sent.form],
          ['multipart', sent.multipart],
          ['gzip', gzipped],
        ];
        if (client === 'node')
          paths.push(
            ['parsed-json', jsonOverLimit(secrets, `node ${round} parsed`, EXTRA_REDACT_KEY)],
            ['parsed-form', formOverLimit(secrets, `node ${round} parsed`, EXTRA_REDACT_KEY)],
          );
        for (const [kind, body] of paths) await post(`${base}/secrets/capture/${client}/${kind}`, body);
        entries += paths.length;
      }
      entries += await composeStrings(secrets, target, round);
      if (round > 0) continue;
      for (const [label, value] of secrets.planted) if (!before.has(label)) firstRound.push(value);
      const labels = ['proxy 0 json password', 'compose 0 json refresh_token (the part before the cut)'];
      probes.push(...labels.map((label) => secrets.planted.get(label) ?? label));
    }
    entries += await otlpExport(secrets, target);
    entries += await harImport(secrets, target);
    if (!(await recorder.flush(15_000))) throw new Error('@tapline/node did not deliver its records');
    return { entries, probes, firstRound };
  } finally {
    proxy.child.kill('SIGTERM');
    await proxy.child;
    await recorder.close(1_000);
    await Promise.all([app.close(), nodeApp.close()]);
  }
}

async function post(url: string, body: PlantedBody): Promise<void> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': body.contentType }, body: body.text });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
}

/** Answers each body with itself and its content type; gzip-encoded under `/gzip`. */
function echo(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const gzip = req.url?.endsWith('/gzip') === true;
    res.writeHead(200, {
      'content-type': req.headers['content-type'] ?? 'text/plain',
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    });
    res.end(gzip ? gzipSync(body) : body);
  });
}

const echoServer = () => createServer(echo);

/** The same echo behind `@tapline/node`; under `/parsed-*`, body parsers read the body before the middleware. */
function nodeEcho(recorder: ReturnType<NodeModule['tapline']>): express.Express {
  const app = express();
  const parsers = [express.json({ limit: '1mb' }), express.urlencoded({ extended: false, limit: '1mb' })];
  app.post(
    ['/secrets/capture/node/parsed-json', '/secrets/capture/node/parsed-form'],
    ...parsers,
    recorder,
    (req, res) => {
      res.json(req.body);
    },
  );
  app.post('/secrets/capture/node/:kind', recorder, echo);
  return app;
}

async function listen(server: Server | express.Express): Promise<{ url: string; close(): Promise<void> }> {
  const http = server instanceof Server ? server : createServer(server);
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    close: () => {
      http.closeAllConnections();
      return new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** Text bodies as composes carry them: cut without redaction (with the marker), whole, as a batch and through `/ingest-log`. */
async function composeStrings(secrets: Secrets, target: CaptureTarget, round: number): Promise<number> {
  const tag = `compose ${round}`;
  const json = jsonOverLimit(secrets, tag, EXTRA_REDACT_KEY);
  const form = formOverLimit(secrets, tag, EXTRA_REDACT_KEY);
  const multipart = multipartOverLimit(secrets, tag, EXTRA_REDACT_KEY);
  const small = `{"Password":"${secrets.make(`${tag} whole json string`)}","list":[{"api-key":"${secrets.make(`${tag} whole json string list`)}"}]}`;
  const record = (path: string, requestBody: string, responseBody: string) => ({
    domainUrl: 'http://shop.local',
    pathnameUrl: `/secrets/capture/compose/${path}`,
    trafficSourceId: target.sourceId,
    status: 200,
    protocol: 'HTTP',
    method: 'POST',
    elapsedTime: 1,
    requestHeaders: {},
    requestBody,
    queryParams: {},
    responseHeaders: {},
    responseBody,
  });
  await send(target, `/http-traffic-record/${target.sourceId}`, record('cut-json', cutAsSent(json), cutAsSent(form)));
  await send(target, `/http-traffic-record/${target.sourceId}/batch`, [
    record('multipart', multipart.text, cutAsSent(multipart)),
    record('whole', small, `a=1&token=${secrets.make(`${tag} small form string`)}`),
  ]);
  const arkyn = {
    ...record('arkyn', '', ''),
    requestHeaders: JSON.stringify({ Authorization: `Bearer ${secrets.make(`${tag} arkyn authorization`)}` }),
    queryParams: '{}',
    responseHeaders: '{}',
  };
  const arkynJson = jsonOverLimit(secrets, `${tag} arkyn`, EXTRA_REDACT_KEY);
  const arkynForm = formOverLimit(secrets, `${tag} arkyn`, EXTRA_REDACT_KEY);
  await send(target, '/ingest-log', {
    ...arkyn,
    requestBody: JSON.stringify(cutAsSent(arkynJson)),
    responseBody: JSON.stringify(cutAsSent(arkynForm)),
  });
  return 4;
}

async function send(
  target: CaptureTarget,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<void> {
  const response = await fetch(`${target.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${target.ingestToken}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 201 && response.status !== 200)
    throw new Error(`${path} answered ${response.status}: ${text}`);
}

/** OTLP carries no bodies: secrets in the span's header attributes and its query. */
async function otlpExport(secrets: Secrets, target: CaptureTarget): Promise<number> {
  const s = (where: string) => secrets.make(`otlp ${where}`);
  const attributes = Object.entries({
    'http.request.method': 'POST',
    'http.response.status_code': 200,
    'url.path': '/secrets/capture/otlp',
    'url.query': `page=1&password=${s('query password')}&api_key=${s('query api_key')}`,
    'http.request.header.authorization': [`Bearer ${s('header authorization')}`],
    'http.request.header.x-api-key': [s('header x-api-key')],
    [`http.request.header.${EXTRA_REDACT_KEY}`]: [s('header extra key')],
    'http.response.header.set-cookie': [`sid=${s('response set-cookie')}`],
  }).map(([key, value]) => ({
    key,
    value: Array.isArray(value)
      ? { arrayValue: { values: value.map((v) => ({ stringValue: v })) } }
      : typeof value === 'number'
        ? { intValue: value }
        : { stringValue: value },
  }));
  const now = BigInt(Date.now()) * 1_000_000n;
  const span = {
    traceId: '5b8efff798038103d269b633813fc60c',
    spanId: 'aaaaaaaaaaaaaaaa',
    name: 'POST /secrets',
    kind: 2,
    startTimeUnixNano: String(now - 5_000_000n),
    endTimeUnixNano: String(now),
    attributes,
  };
  await send(
    target,
    '/v1/traces',
    { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans: [span] }] }] },
    { 'x-tapline-source': target.sourceId },
  );
  return 1;
}

/** `tapline import` of a HAR whose request is JSON over the limit and whose response is a form over it. */
async function harImport(secrets: Secrets, target: CaptureTarget): Promise<number> {
  const json = jsonOverLimit(secrets, 'har', EXTRA_REDACT_KEY);
  const form = formOverLimit(secrets, 'har', EXTRA_REDACT_KEY);
  const entry = {
    startedDateTime: new Date().toISOString(),
    time: 3,
    request: {
      method: 'POST',
      url: 'http://shop.local/secrets/capture/har',
      headers: [],
      postData: { mimeType: json.contentType, text: json.text },
    },
    response: { status: 200, headers: [], content: { mimeType: form.contentType, text: form.text } },
  };
  const file = join(target.workDir, 'secrets.har');
  writeFileSync(file, JSON.stringify({ log: { version: '1.2', entries: [entry] } }));
  const result = await cli(['--url', target.url, '--token', target.ingestToken, 'import', target.sourceId, file], {
    home: join(target.workDir, 'import-home'),
  });
  if (result.exitCode !== 0) throw new Error(`tapline import failed: ${result.stderr}`);
  return 1;
}
