import { contract, type ComposeRecordInput } from '@tapline/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildBatchWorker,
  composeBody,
  createSource,
  type Harness,
  raw,
  rawJson,
  startHarness,
  type TestUser,
} from '@tapline/testkit/daemon';

/**
 * What a 201 shows is what every later read shows. Text that is not Unicode cannot keep that
 * promise once SQLite has stored it, so it is refused, naming the field: a lone surrogate in a
 * stored text field, bytes that are not UTF-8 anywhere in the body. Bodies of the recorded
 * exchange are stored as JSON text, which escapes a lone surrogate, so those are kept as sent.
 */

const LONE = '/lone\ud800';
const NOT_UTF8 = { statusCode: 400, error: 'Request body is not valid UTF-8', code: 'malformed_json' };
const lone = (name: string) => `${name} must be valid Unicode text (it holds a lone surrogate)`;

describe.each([
  ['on the event loop', false],
  ['in the worker thread', true],
])('Unicode and bytes, batches prepared %s', (_where, inWorker) => {
  let h: Harness;
  let user: TestUser;
  let sourceId: string;
  let removeWorker = () => undefined as void;
  const body = (over: Partial<ComposeRecordInput> = {}) => composeBody(sourceId, over);
  const compose = (payload: unknown) => rawJson(h, 'POST', `/http-traffic-record/${sourceId}`, user.token, payload);
  const batch = (payload: unknown) => rawJson(h, 'POST', `/http-traffic-record/${sourceId}/batch`, user.token, payload);
  const bytes = (path: string, payload: Uint8Array) =>
    raw(h, 'POST', path, { token: user.token, body: payload, headers: { 'content-type': 'application/json' } });
  const stored = async () =>
    (await user.client.call(contract.listTraffic, { params: { trafficSourceId: sourceId }, query: { limit: 1000 } }))
      .meta.total;

  beforeAll(async () => {
    const worker = inWorker ? await buildBatchWorker() : null;
    removeWorker = () => worker?.remove();
    h = await startHarness(worker ? { batchWorker: worker } : {});
    user = await h.user();
    sourceId = (await createSource(user.client)).id;
  }, 60_000);
  afterAll(async () => {
    await h.close();
    removeWorker();
  });

  it('refuses a lone surrogate in pathnameUrl, header and query maps, naming the field, and stores nothing', async () => {
    const cases: Array<[Partial<ComposeRecordInput>, string, string]> = [
      [{ pathnameUrl: LONE }, 'pathnameUrl', lone('pathnameUrl')],
      [{ domainUrl: 'https://shop.example.com/\udc00' }, 'domainUrl', lone('domainUrl')],
      [{ requestHeaders: { 'x-note': 'a\ud800b' } }, 'requestHeaders.x-note', lone('x-note')],
      [{ responseHeaders: { 'set-cookie': ['ok', '\udfff'] } }, 'responseHeaders.set-cookie', lone('set-cookie')],
      [{ queryParams: { ['q\ud800']: 'x' } }, 'queryParams', lone('a name')],
    ];
    for (const [over, path, message] of cases) {
      const single = await compose(body(over));
      expect({ status: single.status, issues: (single.json as { issues?: unknown }).issues }).toEqual({
        status: 400,
        issues: [{ path, message }],
      });
      const many = await batch([body(), body(over)]);
      expect({ status: many.status, issues: (many.json as { issues?: unknown }).issues }).toEqual({
        status: 400,
        issues: [{ path: `1.${path}`, message }],
      });
    }
    expect(await stored()).toBe(0);
  });

  it('refuses bodies that are not UTF-8 with a 400 that says so, on composes and batches of every size', async () => {
    const text = JSON.stringify(body({ pathnameUrl: '/caf\u00e9' }));
    const broken = Buffer.from(text, 'utf8');
    // é is C3 A9; C3 followed by a plain byte is not UTF-8, and a decoder would make it U+FFFD.
    broken[broken.indexOf(0xa9)] = 0x41;
    expect((await bytes(`/http-traffic-record/${sourceId}`, broken)).json).toEqual(NOT_UTF8);
    const big = Buffer.from(`[${Array.from({ length: 200 }, () => text).join(',')}]`, 'utf8');
    big[big.lastIndexOf(0xa9)] = 0xff;
    expect(big.length).toBeGreaterThan(64 * 1024);
    expect((await bytes(`/http-traffic-record/${sourceId}/batch`, big)).json).toEqual(NOT_UTF8);
    expect(
      (
        await bytes(
          `/http-traffic-record/${sourceId}/batch`,
          Buffer.concat([Buffer.from('['), broken, Buffer.from(']')]),
        )
      ).json,
    ).toEqual(NOT_UTF8);
    expect(await stored()).toBe(0);
  });

  it('reads back exactly what the 201 showed: surrogate pairs everywhere, lone surrogates inside bodies', async () => {
    const sent = body({
      pathnameUrl: '/caf\u00e9/\ud83d\ude00',
      requestHeaders: { 'x-emoji': '\ud83d\ude00' },
      requestBody: { note: 'half \ud800 of a pair', list: ['\udc00'] },
      responseBody: { ok: '\ud83d\ude00' },
    });
    const created = await compose(sent);
    expect(created.status).toBe(201);
    const echoed = created.json as { id: string };
    const read = await user.client.call(contract.getTraffic, { params: { trafficSourceId: sourceId, id: echoed.id } });
    expect(read).toEqual(echoed);
    expect(read).toMatchObject({
      pathname: sent.pathnameUrl,
      request: { headers: { 'x-emoji': '\ud83d\ude00' }, body: sent.requestBody },
      response: { body: sent.responseBody },
    });
    const listed = await user.client.call(contract.listTraffic, {
      params: { trafficSourceId: sourceId },
      query: { q: `path=${sent.pathnameUrl}` },
    });
    expect(listed.data.map((entry) => entry.id)).toEqual([echoed.id]);
  });

  it('refuses a lone surrogate in a core log and a source name', async () => {
    const log = await rawJson(h, 'POST', `/core-log/${sourceId}`, user.token, { title: 'broken \ud800' });
    expect({ status: log.status, issues: (log.json as { issues?: unknown }).issues }).toEqual({
      status: 400,
      issues: [{ path: 'title', message: lone('title') }],
    });
    const source = await rawJson(h, 'POST', '/traffic-source', user.token, {
      name: 'shop\udfff',
      trafficDomain: 'shop.example.com',
    });
    expect({ status: source.status, issues: (source.json as { issues?: unknown }).issues }).toEqual({
      status: 400,
      issues: [{ path: 'name', message: lone('name') }],
    });
  });
});
