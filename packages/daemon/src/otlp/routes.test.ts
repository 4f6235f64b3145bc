import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import { contract, type TaplineClient } from '@tapline/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSource, type Harness, raw, startHarness } from '@tapline/testkit/daemon';

/** The official protobuf messages, to write protobuf bodies as an SDK's exporter does. */
interface Codec {
  fromObject(value: object): object;
  encode(message: object): { finish(): Uint8Array };
  decode(bytes: Uint8Array): object;
  toObject(message: object, options: object): Record<string, unknown>;
}
const proto = createRequire(import.meta.url)('@opentelemetry/otlp-transformer/build/src/generated/root.js') as {
  opentelemetry: {
    proto: { collector: { trace: { v1: { ExportTraceServiceRequest: Codec; ExportTraceServiceResponse: Codec } } } };
  };
};
const { ExportTraceServiceRequest, ExportTraceServiceResponse } = proto.opentelemetry.proto.collector.trace.v1;

const TRACE = '5b8efff798038103d269b633813fc60c';
const START = 1_795_000_000_000; // ms: 2026-11-18, in the past of the harness's clock
const nanos = (ms: number) => String(BigInt(ms) * 1_000_000n);
const attrs = (map: Record<string, string | number | string[]>) =>
  Object.entries(map).map(([key, v]) => ({
    key,
    value: Array.isArray(v)
      ? { arrayValue: { values: v.map((s) => ({ stringValue: s })) } }
      : typeof v === 'number'
        ? { intValue: v }
        : { stringValue: v },
  }));
const exception = (type: string, message: string) => ({
  name: 'exception',
  timeUnixNano: nanos(START + 5),
  attributes: attrs({
    'exception.type': type,
    'exception.message': message,
    'exception.stacktrace': `${type}: ${message}\n    at handler (app.js:1:1)`,
  }),
});

/** An OTLP/JSON export: a server span of `GET /orders/42?page=2` (current conventions) with a child that threw. */
function exportOf(service: string, server: Record<string, string | number | string[]>, extraSpans: object[] = []) {
  return {
    resourceSpans: [
      {
        resource: { attributes: attrs({ 'service.name': service }) },
        scopeSpans: [
          {
            spans: [
              {
                traceId: TRACE,
                spanId: 'aaaaaaaaaaaaaaaa',
                name: 'GET /orders/:id',
                kind: 2,
                startTimeUnixNano: nanos(START),
                endTimeUnixNano: nanos(START + 12),
                attributes: attrs(server),
              },
              {
                traceId: TRACE,
                spanId: 'bbbbbbbbbbbbbbbb',
                parentSpanId: 'aaaaaaaaaaaaaaaa',
                name: 'request handler',
                kind: 1,
                events: [exception('TypeError', 'order 42 has no customer')],
              },
              {
                traceId: TRACE,
                spanId: 'cccccccccccccccc',
                parentSpanId: 'bbbbbbbbbbbbbbbb',
                name: 'db query',
                kind: 3,
                events: [exception('TypeError', 'order 42 has no customer')],
              },
              ...extraSpans,
            ],
          },
        ],
      },
    ],
  };
}
const CURRENT = {
  'http.request.method': 'GET',
  'http.response.status_code': 500,
  'url.scheme': 'https',
  'server.address': 'shop.example.com',
  'url.path': '/orders/42',
  'url.query': 'page=2',
  'http.route': '/orders/:id',
  'user_agent.original': 'curl/8',
  'http.request.header.authorization': ['Bearer x'],
};
const OLD = {
  'http.method': 'POST',
  'http.status_code': 201,
  'http.scheme': 'http',
  'http.host': 'localhost:3000',
  'http.target': '/cart?x=1',
  'http.route': '/cart',
};

describe('POST /v1/traces (OTLP/HTTP)', () => {
  let h: Harness;
  let token: string;
  let client: TaplineClient;
  let sourceId: string;
  beforeEach(async () => {
    h = await startHarness({ config: { maxBody: 64 * 1024 } });
    const user = await h.user();
    ({ token, client } = user);
    sourceId = (await createSource(client, 'orders-api')).id;
  });
  afterEach(() => h.close());

  const send = (body: string | Uint8Array, headers: Record<string, string>, auth = token) =>
    raw(h, 'POST', '/v1/traces', { token: auth, body, headers });
  const sendJson = (body: object, headers: Record<string, string> = {}) =>
    send(JSON.stringify(body), { 'content-type': 'application/json', ...headers });
  const sendProto = (body: object, headers: Record<string, string> = {}) =>
    send(ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(body)).finish(), {
      'content-type': 'application/x-protobuf',
      ...headers,
    });
  const entries = async () =>
    (await client.call(contract.listTraffic, { params: { trafficSourceId: sourceId }, query: {} })).data;
  const logs = async () =>
    (await client.call(contract.listCoreLogs, { params: { trafficSourceId: sourceId }, query: {} })).data;

  it('JSON: a server span becomes an entry (current conventions), its exception one linked core log', async () => {
    const answer = await sendJson(exportOf('orders-api', CURRENT));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.json).toEqual({});
    const [entry] = await entries();
    expect(entry).toMatchObject({
      method: 'GET',
      status: 500,
      level: 'FATAL',
      protocol: 'HTTPS',
      domain: 'shop.example.com',
      pathname: '/orders/42',
      route: '/orders/{id}',
      elapsedTime: 12,
      createdAt: new Date(START).toISOString(),
    });
    const record = await client.call(contract.getTraffic, {
      params: { trafficSourceId: sourceId, id: entry?.id ?? '' },
    });
    expect(record.request).toEqual({
      headers: { authorization: '[REDACTED]', 'user-agent': 'curl/8' },
      body: null,
      queryParams: { page: '2' },
    });
    const [log, ...more] = await logs();
    expect(more).toEqual([]);
    expect(log).toMatchObject({
      title: 'TypeError',
      description: 'order 42 has no customer',
      source: 'orders-api',
      httpTrafficId: entry?.id,
    });
    expect(log?.stack).toContain('at handler');
  });

  it('protobuf, gzipped: older attribute names, answered in protobuf', async () => {
    const body = ExportTraceServiceRequest.encode(
      ExportTraceServiceRequest.fromObject(exportOf('orders-api', OLD)),
    ).finish();
    const answer = await send(gzipSync(body), { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/x-protobuf');
    const response = await h.fetch('/v1/traces', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-protobuf' },
      body,
    });
    expect(
      ExportTraceServiceResponse.toObject(
        ExportTraceServiceResponse.decode(new Uint8Array(await response.arrayBuffer())),
        {},
      ),
    ).toEqual({});
    const list = await entries();
    expect(list).toHaveLength(2);
    expect(list[0]).toMatchObject({
      method: 'POST',
      status: 201,
      protocol: 'HTTP',
      domain: 'localhost:3000',
      pathname: '/cart',
      route: '/cart',
    });
  });

  it('counts non-HTTP spans as ignored and rejects unusable HTTP server spans with partialSuccess', async () => {
    const noStatus = {
      traceId: TRACE,
      spanId: 'dddddddddddddddd',
      kind: 2,
      attributes: attrs({ 'http.request.method': 'GET', 'url.path': '/x' }),
    };
    const future = {
      traceId: TRACE,
      spanId: 'eeeeeeeeeeeeeeee',
      kind: 2,
      startTimeUnixNano: nanos(Date.now() + 3_600_000),
      attributes: attrs({ ...CURRENT, 'url.path': '/late' }),
    };
    const head = {
      traceId: TRACE,
      spanId: 'ffffffffffffffff',
      kind: 2,
      attributes: attrs({ ...CURRENT, 'http.request.method': 'HEAD' }),
    };
    const answer = await sendJson(exportOf('orders-api', CURRENT, [noStatus, future, head]));
    expect(answer.json).toMatchObject({ partialSuccess: { rejectedSpans: '2' } });
    expect((answer.json as { partialSuccess: { errorMessage: string } }).partialSuccess.errorMessage).toMatch(
      /no http.response.status_code.*startedAt must not be more than 5 minutes in the future/,
    );
    expect(await entries()).toHaveLength(1);
  });

  it('finds the source by header (name or id), by the token restriction, else by service.name', async () => {
    const other = await createSource(client, 'billing');
    await sendJson(exportOf('unnamed-service', CURRENT), { 'x-tapline-source': 'orders-api' });
    await sendJson(exportOf('unnamed-service', CURRENT), { 'x-tapline-source': sourceId });
    expect(await entries()).toHaveLength(2);
    const restricted = await h.deps.tokens.issue({
      userId: other.userId,
      scope: 'ingest',
      sourceId: other.id,
      expiresAt: null,
    });
    expect(
      (
        await send(
          JSON.stringify(exportOf('whatever', CURRENT)),
          { 'content-type': 'application/json' },
          restricted.token,
        )
      ).status,
    ).toBe(200);
    expect(
      (await client.call(contract.listTraffic, { params: { trafficSourceId: other.id }, query: {} })).data,
    ).toHaveLength(1);
    const unknown = await sendJson(exportOf('checkout', CURRENT));
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ code: 'source_not_found' });
    expect((unknown.json as { error: string }).error).toContain('"checkout"');
    expect((await sendJson(exportOf('x', CURRENT), { 'x-tapline-source': 'nope' })).status).toBe(404);
    const read = await h.deps.tokens.issue({ userId: other.userId, scope: 'read', sourceId: null, expiresAt: null });
    expect(
      (await send(JSON.stringify(exportOf('orders-api', CURRENT)), { 'content-type': 'application/json' }, read.token))
        .status,
    ).toBe(403);
  });

  it('400 for an undecodable body (as google.rpc.Status for protobuf), 415, 413, and 400/401 without a valid token', async () => {
    const garbage = await h.fetch('/v1/traces', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-protobuf' },
      body: new Uint8Array([0x0a, 0xff, 0xff]),
    });
    expect(garbage.status).toBe(400);
    const status = new Uint8Array(await garbage.arrayBuffer());
    expect(status[0]).toBe(0x08); // field 1 (code), varint
    expect(status[1]).toBe(3); // INVALID_ARGUMENT
    expect(Buffer.from(status).toString()).toContain('not an OTLP ExportTraceServiceRequest');
    expect((await send('{"resourceSpans": 7}', { 'content-type': 'application/json' })).status).toBe(400);
    expect((await send('not json', { 'content-type': 'application/json' })).status).toBe(400);
    expect((await send('x', { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await sendJson({ resourceSpans: [], padding: 'x'.repeat(70 * 1024) })).status).toBe(413);
    expect((await sendJson(exportOf('orders-api', CURRENT), {})).status).toBe(200);
    expect((await send('{}', { 'content-type': 'application/json' }, '')).status).toBe(400);
    expect((await sendProto({ resourceSpans: [] }, {})).status).toBe(200);
    expect((await send('{}', { 'content-type': 'application/json' }, 'bad')).status).toBe(401);
  });
});
