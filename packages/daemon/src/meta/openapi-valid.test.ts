import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSource, raw, type Harness, startHarness } from '@tapline/testkit/daemon';

type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
  schema: Schema;
}
interface Document {
  servers: { url: string }[];
  paths: Record<
    string,
    Record<
      string,
      {
        parameters: Parameter[];
        requestBody?: { content: Record<string, { schema: Schema }> };
        responses: Record<string, unknown>;
      }
    >
  >;
  components: { schemas: Record<string, Schema> };
}

/** Values a client may pick for a `format` (RFC 3339 edge forms included). */
const FORMAT_SAMPLES: Record<string, string[]> = {
  date: ['2026-01-01', '2024-02-29'],
  'date-time': [
    '2026-01-01T00:00:00Z',
    '2026-01-01T23:59:59.123456+05:30',
    '2026-01-01T00:00:00-23:59',
    '2026-01-01t00:00:00z',
    '2026-06-30T23:59:60Z',
  ],
};
/** Candidates for a `pattern`: only those it matches are sent. */
const PATTERN_CANDIDATES = ['100', '404', '599', '600', '1xx', '5XX', '6xx', 'abc'];

/** Query values the document declares valid for `schema`, as a client or fuzzer would build them. */
function samples(schema: Schema): string[] {
  const matches = (v: string) => typeof schema.pattern !== 'string' || new RegExp(schema.pattern, 'u').test(v);
  if (Array.isArray(schema.enum)) return schema.enum.map(String);
  if (schema.type === 'integer') return [String(schema.minimum), String(schema.maximum)];
  if (schema.format === 'uuid') return [randomUUID()];
  const formats = Array.isArray(schema.anyOf) ? (schema.anyOf as Schema[]).map((b) => String(b.format)) : [];
  if (formats.length > 0) return formats.flatMap((f) => FORMAT_SAMPLES[f] ?? []).filter(matches);
  if (typeof schema.pattern === 'string') return PATTERN_CANDIDATES.filter(matches);
  return [];
}

/** The redocly CLI installed as a dev dependency: no network, the same rules as `npx @redocly/cli lint`. */
const REDOCLY = join(dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin/cli.js');

describe('GET /openapi.json is a valid OpenAPI 3.1 document with the daemon’s constraints', () => {
  let h: Harness;
  let doc: Document;
  let text: string;

  beforeAll(async () => {
    h = await startHarness();
    const answer = await raw(h, 'GET', '/openapi.json');
    doc = answer.json as Document;
    text = JSON.stringify(doc);
  });
  afterAll(() => h.close());

  it('passes swagger-parser validation', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  });

  it('passes `redocly lint` with no error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tapline-openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, text);
      const run = await promisify(execFile)(process.execPath, [REDOCLY, 'lint', file, '--format=json'], {
        maxBuffer: 16 * 1024 * 1024,
      }).catch((error: { stdout: string; stderr: string }) => error);
      const report = JSON.parse(run.stdout) as {
        totals: { errors: number };
        problems: { severity: string; message: string }[];
      };
      expect(report.problems.filter((p) => p.severity === 'error')).toEqual([]);
      expect(report.totals.errors).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('has every $ref resolvable at the document root, and no itemSchema', () => {
    for (const [, ref] of text.matchAll(/"\$ref":"([^"]+)"/g)) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(doc.components.schemas[ref!.split('/').pop()!], ref).toBeDefined();
    }
    expect(text).not.toContain('"itemSchema"');
    expect(text).not.toContain('$defs');
  });

  it('names the address the daemon listens on', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: h.url })]);
  });

  it('accepts every query value the document allows, one parameter at a time', async () => {
    const user = await h.user();
    const source = await createSource(user.client);
    const refused: string[] = [];
    let sent = 0;
    for (const [template, operations] of Object.entries(doc.paths)) {
      const get = operations.get;
      // The stream never ends; other path ids would need objects of their own.
      if (!get || template.endsWith('/stream') || template.replace('{trafficSourceId}', '').includes('{')) continue;
      const path = template.replace('{trafficSourceId}', source.id);
      for (const parameter of get.parameters.filter((p) => p.in === 'query')) {
        // A source named in the query (/metrics' `source`) must exist: the test's own, not a made-up id.
        for (const value of parameter.name === 'source' ? [source.id] : samples(parameter.schema)) {
          const answer = await raw(h, 'GET', `${path}?${new URLSearchParams({ [parameter.name]: value }).toString()}`, {
            token: user.token,
          });
          sent += 1;
          if (answer.status !== 200)
            refused.push(`${template} ${parameter.name}=${value}: ${answer.status} ${answer.text}`);
        }
      }
    }
    expect(sent).toBeGreaterThan(40);
    expect(refused).toEqual([]);
  });

  it('carries the constraints the daemon enforces', () => {
    const list = doc.paths['/http-traffic/{trafficSourceId}']!.get!;
    const param = (name: string) => list.parameters.find((p) => p.name === name)?.schema;
    expect(param('page')).toEqual({ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
    expect(param('limit')).toEqual({ type: 'integer', minimum: 1, maximum: 1000 });
    expect(param('startDate')).toMatchObject({ type: 'string', anyOf: [{ format: 'date-time' }, { format: 'date' }] });
    expect(param('method')).toMatchObject({ type: 'string', enum: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] });
    expect(param('level')).toMatchObject({ type: 'string', enum: ['INFO', 'WARNING', 'FATAL'] });
    const status = new RegExp(String(param('status')?.pattern));
    expect(['404', '100', '599', '5xx', '4XX'].filter((v) => !status.test(v))).toEqual([]);
    expect(['600', '99', '6xx', 'abc', '40'].filter((v) => status.test(v))).toEqual([]);
    expect(param('q')).toMatchObject({ type: 'string', maxLength: 4000 });

    const body = (path: string, method: string) =>
      doc.paths[path]![method]!.requestBody!.content['application/json']!.schema;
    const compose = body('/http-traffic-record/{trafficSourceId}', 'post') as { properties: Record<string, Schema> };
    expect(compose.properties.protocol).toMatchObject({ enum: ['HTTP', 'HTTPS'] });
    expect(compose.properties.pathnameUrl).not.toHaveProperty('format');
    expect(body('/traffic-source/{trafficSourceId}', 'patch')).toMatchObject({
      minProperties: 1,
      anyOf: [{ required: ['name'] }, { required: ['trafficDomain'] }],
    });
    expect((body('/webhooks/{id}', 'post') as { properties: Record<string, Schema> }).properties.value).toMatchObject({
      format: 'uri',
    });
  });

  it("describes each webhook type's URL, and a URL it allows is accepted", async () => {
    const schema = doc.paths['/webhooks/{id}']!.post!.requestBody!.content['application/json']!.schema as {
      anyOf: { properties: { type: { const: string }; value: { pattern: string } } }[];
    };
    const pattern = (type: string) =>
      new RegExp(schema.anyOf.find((b) => b.properties.type.const === type)!.properties.value.pattern);
    const allowed = {
      discord: 'https://discord.com/api/webhooks/123456/tok-en_1',
      slack: 'https://hooks.slack.com/services/T0/B0/XX',
      http: 'https://example.com/hook',
    };
    const refused = {
      discord: [
        'http://discord.com/api/webhooks/1/a',
        'https://evil.example/api/webhooks/1/a',
        'https://discord.com/x',
      ],
      slack: ['https://hooks.slack.com.evil.example/services/a'],
    };
    for (const [type, url] of Object.entries(allowed)) expect(pattern(type).test(url), type).toBe(true);
    for (const [type, urls] of Object.entries(refused))
      for (const url of urls) expect(pattern(type).test(url), url).toBe(false);

    const user = await h.user();
    const source = await createSource(user.client);
    for (const [type, value] of Object.entries(allowed)) {
      const answer = await raw(h, 'POST', `/webhooks/${source.id}`, {
        token: user.token,
        body: JSON.stringify({ type, level: 'fatal', value }),
        headers: { 'content-type': 'application/json' },
      });
      expect(answer.status, `${type} ${answer.text}`).toBe(201);
    }
  });
});
