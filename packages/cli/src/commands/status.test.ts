import { contract } from '@tapline/shared';
import { composeBody, createSource, type Harness, manualClock, startHarness } from '@tapline/testkit/daemon';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { run } from '@tapline/testkit/cli';

let h: Harness;
const clock = manualClock('2026-11-01T10:00:00.000Z');
beforeAll(async () => {
  h = await startHarness({
    clock,
    pruner: { start: false },
    config: { retention: { maxAgeMs: 36 * 3_600_000, maxBytes: 2 * 2 ** 30, everyMs: 60_000 } },
  });
});
afterAll(() => h.close());

it('tapline status shows the database size, its oldest entry and the retention and budget in force', async () => {
  const user = await h.user();
  const empty = await run(['--url', h.url, '--token', user.token, 'status']);
  expect(empty.code, empty.stderr).toBe(EXIT.OK);
  expect(empty.stdout).toMatch(/^storage {2}(sqlite|postgres) [\d.]+ (KB|MB), no entries, keeps 36h, budget 2 GB$/m);

  const source = await createSource(user.client);
  await user.client.call(contract.composeRecord, {
    params: { trafficSourceId: source.id },
    body: composeBody(source.id),
  });
  clock.advance(60_000);
  await user.client.call(contract.composeRecord, {
    params: { trafficSourceId: source.id },
    body: composeBody(source.id),
  });

  const health = await h.anonymous.call(contract.health);
  expect(health.storage).toEqual({
    bytes: await h.deps.storage.sizeBytes(),
    oldestEntryAt: '2026-11-01T10:00:00.000Z',
    retentionMs: 36 * 3_600_000,
    maxBytes: 2 * 2 ** 30,
  });
  const json = await run(['--url', h.url, '--token', user.token, 'status', '--json']);
  expect(JSON.parse(json.stdout)).toMatchObject({ storage: { oldestEntryAt: '2026-11-01T10:00:00.000Z' } });
  const text = await run(['--url', h.url, '--token', user.token, 'status']);
  expect(text.stdout).toContain(`oldest entry ${new Date('2026-11-01T10:00:00.000Z').toLocaleDateString('sv')}`);
});
