// Daemon memory under sustained compose (50 connections, the realistic record), against bare
// node:http under the same load (bench/floors/echo.mjs), interleaved by round: a round loads the
// floor, then the daemon, sampling each one's resident set every second (/proc). The daemon runs
// through every round, so its rounds together are the sustained run (5 minutes in full mode), and
// the growth from the end of the first round to the end of the last says whether it stays flat.
// Target (issue 17): <= 150 MiB, flat over 5 minutes.
import { join } from 'node:path';
import { autocannon, composeRecord, createSource, rssMiB, spawnNode, startDaemon, throughput } from '../lib.mjs';
import { figure, interleave, pluck, versus } from '../figures.mjs';
import { loadRealisticRecord } from '../ts.mjs';

export const figures = [
  'daemon peak RSS MiB under compose',
  'daemon RSS growth first to last round MiB',
  'bare node:http peak RSS MiB under the same load',
  'daemon idle RSS MiB',
];

/** Loads `url` for `seconds` and returns the peak and last RSS of `pid`, sampled every second. */
async function underLoad(root, url, args, pid, seconds, what) {
  const samples = [];
  const timer = setInterval(() => samples.push(rssMiB(pid)), 1000);
  try {
    throughput(await autocannon(root, [...args, '-d', String(seconds), url]), what);
  } finally {
    clearInterval(timer);
  }
  samples.push(rssMiB(pid));
  return { peak: Math.max(...samples), last: samples.at(-1) };
}

export default async function run({ root, log, quick, tmp }) {
  const [rounds, floorSeconds, daemonSeconds] = quick ? [1, 1, 2] : [5, 10, 60];
  const home = tmp();
  const daemon = await startDaemon(root, home.path);
  const floor = spawnNode([join(root, 'bench', 'floors', 'echo.mjs'), 'http'], /listening on (\S+)/);
  try {
    const floorUrl = await floor.ready;
    const source = await createSource(daemon.url, daemon.token, 'bench');
    const idle = rssMiB(daemon.child.pid);
    const body = JSON.stringify(composeRecord(await loadRealisticRecord(root), source.id));
    const path = `/http-traffic-record/${source.id}`;
    const args = [
      '-c',
      '50',
      '-m',
      'POST',
      '-H',
      'content-type=application/json',
      '-H',
      `authorization=Bearer ${daemon.token}`,
      '-b',
      body,
    ];
    log(`${rounds} rounds: bare node:http ${floorSeconds} s, then the daemon ${daemonSeconds} s`);
    const values = await interleave(
      rounds,
      [
        [
          'bare node:http',
          () => underLoad(root, `${floorUrl}${path}`, args, floor.child.pid, floorSeconds, 'node:http'),
        ],
        ['taplined', () => underLoad(root, `${daemon.url}${path}`, args, daemon.child.pid, daemonSeconds, 'taplined')],
      ],
      log,
    );
    const last = pluck(values.taplined, 'last');
    return {
      figures: {
        'daemon peak RSS MiB under compose': versus('MiB', pluck(values.taplined, 'peak'), {
          'bare node:http': pluck(values['bare node:http'], 'peak'),
        }),
        'daemon RSS growth first to last round MiB': figure('MiB', [last.at(-1) - last[0]]),
        'bare node:http peak RSS MiB under the same load': figure('MiB', pluck(values['bare node:http'], 'peak')),
        'daemon idle RSS MiB': figure('MiB', [idle]),
      },
    };
  } finally {
    await floor.stop();
    await daemon.stop();
    home.remove();
  }
}
