// Issue 26: what the route statistics cost ingest. Two daemons started alike, one with
// `--no-stats`; each round runs single composes (50 connections) and batches of 1,000 (4
// connections) against both, one after the other, and the figure is the ratio within the round.
// The records are bench/stats-data.mjs's (200 routes), stamped within the last minute as live
// traffic is, so a batch adds to a few hundred minute, hour and day rows. Target: >= 0.9x.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { autocannon, createSource, startDaemon, throughput } from '../lib.mjs';
import { figure, interleave, pluck, versus } from '../figures.mjs';
import { statsBatch } from '../stats-data.mjs';
import { loadRealisticRecord } from '../ts.mjs';

export const figures = [
  'single compose records/s, statistics on',
  'batches of 1,000 records/s, statistics on',
  'single compose records/s, --no-stats',
  'batches of 1,000 records/s, --no-stats',
];

export default async function run({ root, log, quick, tmp }) {
  // A batch of 1,000 takes 1.5 to 2.5 s at four connections: a round counts whole batches, so
  // 5 s of them (8 to 15) moved the ratio by a tenth with one batch more or less. 20 s, 40 or more.
  const [rounds, seconds, batchSeconds] = quick ? [1, 1, 1] : [5, 5, 20];
  const realisticRecord = await loadRealisticRecord(root);
  const homes = [tmp(), tmp()];
  const on = await startDaemon(root, homes[0].path);
  const off = await startDaemon(root, homes[1].path, ['--no-stats']);
  try {
    const targets = [];
    for (const [name, daemon] of [
      ['on', on],
      ['off', off],
    ]) {
      const source = await createSource(daemon.url, daemon.token, 'bench');
      // Live traffic: stamped over the last minute, not the last day.
      const records = statsBatch(realisticRecord, source.id, 1000, Date.now(), 0).map((r, i) => ({
        ...r,
        startedAt: new Date(Date.now() - 60_000 + i * 60).toISOString(),
      }));
      const file = join(homes[0].path, `${name}.json`);
      writeFileSync(file, JSON.stringify(records));
      const args = ['-m', 'POST', '-H', 'content-type=application/json', '-H', `authorization=Bearer ${daemon.token}`];
      const post = (what, connections, body, path, perRequest, duration = seconds) =>
        autocannon(root, [
          ...args,
          '-t',
          '60',
          '-c',
          String(connections),
          ...(quick ? ['-a', String(Math.max(8, 400 / perRequest))] : ['-d', String(duration)]),
          ...body,
          `${daemon.url}${path}`,
        ]).then((r) => throughput(r, what, perRequest));
      const single = JSON.stringify({ ...records[0], startedAt: undefined });
      targets.push([
        `single ${name}`,
        () => post('single compose', 50, ['-b', single], `/http-traffic-record/${source.id}`, 1),
      ]);
      targets.push([
        `batch ${name}`,
        () => post('batch of 1,000', 4, ['-i', file], `/http-traffic-record/${source.id}/batch`, 1000, batchSeconds),
      ]);
    }
    const steps = [targets[0], targets[2], targets[1], targets[3]];
    if (!quick) for (const [, step] of steps) await step(); // warm-up
    // In a fixed order the single composes with statistics always ran right after the other
    // daemon's batches of 1,000 (their writes still being flushed), and those without never did;
    // alternating the order shares that between the two.
    const values = await interleave(rounds, steps, log, { alternate: true });
    const perSecond = (name) => pluck(values[name], 'perSecond');
    return {
      figures: {
        'single compose records/s, statistics on': versus('records/s', perSecond('single on'), {
          '--no-stats': perSecond('single off'),
        }),
        'batches of 1,000 records/s, statistics on': versus('records/s', perSecond('batch on'), {
          '--no-stats': perSecond('batch off'),
        }),
        'single compose records/s, --no-stats': figure('records/s', perSecond('single off')),
        'batches of 1,000 records/s, --no-stats': figure('records/s', perSecond('batch off')),
      },
    };
  } finally {
    await on.stop();
    await off.stop();
    for (const home of homes) home.remove();
  }
}
