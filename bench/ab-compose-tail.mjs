// `node bench/ab-compose-tail.mjs BEFORE_TAPLINED_JS [rounds] [seconds]`: the 01-compose scenario's
// load (50 connections, the realistic 1.6 KB record) on bare Express 5 (bench/floors/echo.mjs) and
// two daemons, another build's (`before`, e.g. a copy of a built packages/daemon/dist) and this
// checkout's (`after`), interleaved round by round (the daemons go first in turn, Express runs
// first in every round). Prints each round's requests/s and p50/p90/p99/max latency, and the
// medians; for a change to the compose path's tail, where only figures side by side mean anything.
// `AB_NODE_FLAGS='--flag …'` go to both daemons' node (e.g. `--require probe.cjs`);
// `AB_AFTER_NODE_FLAGS` / `AB_BEFORE_NODE_FLAGS` to one side's; their stderr goes to this one's.
// Ends with each daemon's peak resident set.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { autocannon, composeRecord, createSource, rssMiB, spawnNode, stopChild, tempHome } from './lib.mjs';
import { median } from './figures.mjs';
import { loadRealisticRecord } from './ts.mjs';

const here = join(import.meta.dirname, '..');
const [before, rounds = '5', seconds = '10'] = process.argv.slice(2);
if (!before) throw new Error('usage: node bench/ab-compose-tail.mjs BEFORE_TAPLINED_JS [rounds] [seconds]');
const flags = (name) => process.env[name]?.split(' ').filter(Boolean) ?? [];
const home = tempHome();
const realistic = await loadRealisticRecord(here);

async function daemon(entry, name) {
  const dir = join(home.path, name);
  const nodeFlags = [...flags('AB_NODE_FLAGS'), ...flags(`AB_${name.toUpperCase()}_NODE_FLAGS`)];
  const child = spawnNode(
    [...nodeFlags, entry, '--port', '0', '--home', dir, '--log-level', 'warn'],
    /listening on (http:\/\/\S+)/,
  );
  child.child.stderr.on('data', (c) => process.stderr.write(`[${name}] ${c}`));
  const url = await child.ready;
  const token = readFileSync(join(dir, 'token'), 'utf8').trim();
  const source = await createSource(url, token, 'ab');
  return { name, url, token, source, pid: child.child.pid, stop: () => stopChild(child.child) };
}

const express = spawnNode([join(here, 'bench', 'floors', 'echo.mjs'), 'express'], /listening on (\S+)/);
const sides = [await daemon(before, 'before'), await daemon(join(here, 'packages/daemon/dist/taplined.js'), 'after')];
const expressSide = { ...sides[0], name: 'express', url: await express.ready };
const load = async (side, d = seconds) => {
  const body = JSON.stringify(composeRecord(realistic, side.source.id));
  const r = await autocannon(here, [
    '-c',
    '50',
    '-d',
    String(d),
    '-m',
    'POST',
    '-H',
    'content-type=application/json',
    '-H',
    `authorization=Bearer ${side.token}`,
    '-b',
    body,
    `${side.url}/http-traffic-record/${side.source.id}`,
  ]);
  if (r.non2xx + r.errors + r.timeouts > 0) throw new Error(`${side.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  const { p50, p90, p99, max } = r.latency;
  return { perSecond: r['2xx'] / r.duration, p50, p90, p99, max };
};

for (const side of [expressSide, ...sides]) await load(side, 3); // warm-up
const values = { express: [], before: [], after: [] };
const text = (name, v) => `${name} ${v.perSecond.toFixed(0)}/s p50 ${v.p50} p90 ${v.p90} p99 ${v.p99} max ${v.max}`;
for (let round = 1; round <= Number(rounds); round++) {
  const order = [expressSide, ...(round % 2 ? sides : [...sides].reverse())];
  for (const side of order) values[side.name].push(await load(side));
  const load1 = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
  process.stdout.write(
    `round ${round} (load ${load1}): ${order.map((s) => text(s.name, values[s.name].at(-1))).join(', ')}\n`,
  );
}
const med = (name, key) => median(values[name].map((v) => v[key]));
for (const name of Object.keys(values))
  process.stdout.write(
    `${name}: median ${med(name, 'perSecond').toFixed(0)}/s, p50 ${med(name, 'p50')} p90 ${med(name, 'p90')} p99 ${med(name, 'p99')} ms\n`,
  );
const per = (name, key) => values[name].map((v, i) => v[key] / values.express[i][key]);
for (const name of ['before', 'after'])
  process.stdout.write(
    `${name} ÷ Express by round: requests/s ${per(name, 'perSecond')
      .map((r) => r.toFixed(2))
      .join(' ')} (median ${median(per(name, 'perSecond')).toFixed(2)}); p99 ${per(name, 'p99')
      .map((r) => r.toFixed(2))
      .join(' ')} (median ${median(per(name, 'p99')).toFixed(2)})\n`,
  );
// The daemons' peak resident set since they started (each ran the same load).
process.stdout.write(
  `peak RSS: ${sides.map((s) => `${s.name} ${rssMiB(s.pid, 'VmHWM').toFixed(1)} MiB`).join(', ')}\n`,
);
for (const side of sides) await side.stop();
await express.stop();
home.remove();
