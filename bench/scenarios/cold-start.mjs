// Daemon cold start: from spawning `node taplined.js` to its first 200 (GET /healthz), against bare
// node:http answering 200 from a spawned `node -e`, interleaved by round. The clock runs from the
// spawn to the first 200 a polling client gets (every 2 ms, the same client for both). Two
// daemon figures: a restart on an existing home (the usual start), and a first start in an empty
// home (database created and migrated, token written). Target (issue 17): <= 2x bare node.
import { spawn } from 'node:child_process';
import { get } from 'node:http';
import { join } from 'node:path';
import { startDaemon, stopChild } from '../lib.mjs';
import { figure, interleave, versus } from '../figures.mjs';
import { freePort } from '../peers.mjs';

export const figures = [
  'daemon start to first 200 ms',
  'daemon first start (empty home) to first 200 ms',
  'bare node:http start to first 200 ms',
];

export const BARE =
  "require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.argv[1]), '127.0.0.1')";

export const answers200 = (port) =>
  new Promise((resolve) => {
    get({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    }).on('error', () => resolve(false));
  });

/** Spawns `args` with `port` appended, returns ms to the first 200, and stops it. */
export async function timeToFirst200(args, port) {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, args, { stdio: 'ignore' });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
      if (await answers200(port)) return Number(process.hrtime.bigint() - started) / 1e6;
      await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    await stopChild(child);
  }
}

export default async function run({ root, log, quick, tmp }) {
  const rounds = quick ? 1 : 10;
  const taplined = join(root, 'packages/daemon/dist/taplined.js');
  const home = tmp();
  await (await startDaemon(root, home.path)).stop(); // the home exists from here on, as after any first run
  const homes = [];
  try {
    const port = await freePort();
    const values = await interleave(
      rounds,
      [
        ['bare node:http', () => timeToFirst200(['-e', BARE, String(port)], port)],
        [
          'taplined',
          () => timeToFirst200([taplined, '--home', home.path, '--log-level', 'warn', '--port', String(port)], port),
        ],
        [
          'taplined, empty home',
          () => {
            homes.push(tmp());
            return timeToFirst200(
              [taplined, '--home', homes.at(-1).path, '--log-level', 'warn', '--port', String(port)],
              port,
            );
          },
        ],
      ],
      log,
    );
    const bare = values['bare node:http'];
    return {
      figures: {
        'daemon start to first 200 ms': versus('ms', values.taplined, { 'bare node:http': bare }),
        'daemon first start (empty home) to first 200 ms': versus('ms', values['taplined, empty home'], {
          'bare node:http': bare,
        }),
        'bare node:http start to first 200 ms': figure('ms', bare),
      },
    };
  } finally {
    home.remove();
    for (const h of homes) h.remove();
  }
}
