import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contract, createClient, type TaplineClient } from '@tapline/shared';
import { har as validateHar } from 'har-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, type SpawnedDaemon, startDaemon, tempHome } from './support/binaries.js';

/** A real export: mitmdump 8.1.1 (`-s har_dump.py --set hardump=…`) reverse-proxying curl to a loopback app. */
const MITMPROXY_HAR = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'mitmproxy.har');

describe('HAR in and out with the built binaries', () => {
  const home = tempHome();
  let daemon: SpawnedDaemon;
  let owner: TaplineClient;
  const run = (args: string[]) => cli(['--url', daemon.url, ...args], { home: home.path });
  beforeAll(async () => {
    daemon = await startDaemon(home.path);
    owner = createClient({ baseUrl: daemon.url, token: daemon.token });
    await owner.call(contract.createTrafficSource, { body: { name: 'shop', trafficDomain: 'shop.example.com' } });
    await owner.call(contract.createTrafficSource, { body: { name: 'copy', trafficDomain: 'shop.example.com' } });
  });
  afterAll(async () => {
    await daemon.stop();
    home.remove();
  });
  const sourceId = async (name: string) =>
    (await owner.call(contract.listTrafficSources, { query: { limit: 100 } })).data.find((s) => s.name === name)?.id ??
    '';
  const entries = async (name: string) =>
    (
      await owner.call(contract.listTraffic, {
        params: { trafficSourceId: await sourceId(name) },
        query: { limit: 100 },
      })
    ).data;

  it('imports a real mitmproxy export: recorded methods sent with their start times, others counted', async () => {
    const result = await run(['import', 'shop', MITMPROXY_HAR]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain('imported 5 entries into shop');
    expect(result.stdout).toMatch(/skipped 2 \((OPTIONS 1, HEAD 1|HEAD 1, OPTIONS 1)\)/);
    const har = JSON.parse(readFileSync(MITMPROXY_HAR, 'utf8')) as {
      log: { entries: { startedDateTime: string; request: { method: string } }[] };
    };
    const stored = await entries('shop');
    const recorded = har.log.entries.filter((e) =>
      ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'].includes(e.request.method),
    );
    expect(stored.map((e) => e.createdAt).sort()).toEqual(
      recorded.map((e) => new Date(e.startedDateTime).toISOString()).sort(),
    );
    const post = stored.find((e) => e.method === 'POST');
    const record = await owner.call(contract.getTraffic, {
      params: { trafficSourceId: await sourceId('shop'), id: post?.id ?? '' },
    });
    expect(record).toMatchObject({
      status: 201,
      pathname: '/orders',
      request: { headers: { authorization: '[REDACTED]' }, body: { sku: 'A-1', password: '[REDACTED]' } },
      response: { headers: { 'set-cookie': '[REDACTED]' }, body: { ok: true, method: 'POST' } },
    });
    const get = stored.find((e) => e.pathname === '/orders/42');
    expect(
      (
        await owner.call(contract.getTraffic, {
          params: { trafficSourceId: await sourceId('shop'), id: get?.id ?? '' },
        })
      ).request.queryParams,
    ).toEqual({ page: '2', tag: ['a', 'b'] });
  });

  it('exports HAR 1.2 that har-validator accepts, with filters, and imports back', async () => {
    const file = join(home.path, 'shop.har');
    const written = await run(['traffic', 'export', 'shop', '--har', '-o', file]);
    expect(written.exitCode, written.stderr).toBe(0);
    const document = JSON.parse(readFileSync(file, 'utf8')) as {
      log: { entries: { request: { method: string }; response: { status: number } }[] };
    };
    await expect(validateHar(document)).resolves.toBeDefined();
    expect(document.log.entries).toHaveLength(5);
    const errors = await run(['traffic', 'export', 'shop', '--status', '5xx', '--where', 'method=DELETE', '--har']);
    expect(errors.exitCode, errors.stderr).toBe(0);
    const fatal = JSON.parse(errors.stdout) as typeof document;
    await expect(validateHar(fatal)).resolves.toBeDefined();
    expect(fatal.log.entries.map((e) => `${e.request.method} ${e.response.status}`)).toEqual(['DELETE 500']);
    const again = await run(['import', 'copy', file, '--json']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ imported: 5, skipped: {} });
    expect((await entries('copy')).map((e) => e.createdAt).sort()).toEqual(
      (await entries('shop')).map((e) => e.createdAt).sort(),
    );
    expect((await run(['traffic', 'export', 'shop'])).exitCode).toBe(2);
  });

  it('refuses a malformed file with exit 7 and sends nothing', async () => {
    const before = (await entries('copy')).length;
    const notJson = join(home.path, 'broken.har');
    writeFileSync(notJson, '{"log": {"entries": [');
    const broken = await run(['import', 'copy', notJson]);
    expect(broken.exitCode).toBe(7);
    expect(broken.stderr).toContain('is not a HAR file: it is not JSON');
    const noEntries = join(home.path, 'empty.har');
    writeFileSync(noEntries, '{"log": {"version": "1.2"}}');
    expect((await run(['import', 'copy', noEntries])).exitCode).toBe(7);
    const badEntry = join(home.path, 'bad-entry.har');
    const har = JSON.parse(readFileSync(MITMPROXY_HAR, 'utf8')) as { log: { entries: Record<string, unknown>[] } };
    har.log.entries[3] = { ...har.log.entries[3], response: undefined };
    writeFileSync(badEntry, JSON.stringify(har));
    const bad = await run(['import', 'copy', badEntry]);
    expect(bad.exitCode).toBe(7);
    expect(bad.stderr).toContain('entry 4 is not a HAR entry');
    expect((await run(['import', 'copy', join(home.path, 'missing.har')])).exitCode).toBe(2);
    expect(await entries('copy')).toHaveLength(before);
  });

  it('importing the same file again skips every entry already imported and says how many', async () => {
    const before = await entries('shop');
    const again = await run(['import', 'shop', MITMPROXY_HAR]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toMatch(
      /^imported 0 entries into shop\nskipped 5 already imported\nskipped 2 \((OPTIONS 1, HEAD 1|HEAD 1, OPTIONS 1)\)$/,
    );
    expect((await entries('shop')).map((e) => e.id).sort()).toEqual(before.map((e) => e.id).sort());
    // A file of which some entries are new: only those are sent.
    const har = JSON.parse(readFileSync(MITMPROXY_HAR, 'utf8')) as { log: { entries: { startedDateTime: string }[] } };
    const moved = structuredClone(har);
    const [first] = moved.log.entries;
    if (first) first.startedDateTime = new Date(Date.parse(first.startedDateTime) + 1).toISOString();
    const partly = join(home.path, 'partly-new.har');
    writeFileSync(partly, JSON.stringify(moved));
    const json = await run(['import', 'shop', partly, '--json']);
    expect(json.exitCode, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ imported: 1, alreadyImported: 4 });
    expect(await entries('shop')).toHaveLength(before.length + 1);
  });
});
