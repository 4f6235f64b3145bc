// `node bench/ab-proxy.mjs OTHER_ROOT [rounds] [seconds]`: this checkout's `tapline proxy` (and its
// daemon) against another checkout's, built, in front of one app, interleaved round by round at
// 20 connections, with CPU per request of proxy and daemon. For measuring a change to the proxy on
// a shared machine, where only figures taken side by side mean anything.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { autocannon, cpuMs, createSource, spawnDaemon, spawnNode, spawnProxy, tempHome, throughput } from './lib.mjs';
import { loadRealisticRecord } from './ts.mjs';
import { appAnswer } from './scenarios/proxy.mjs';

const here = join(import.meta.dirname, '..');
const [other, rounds = '5', seconds = '8'] = process.argv.slice(2);
const home = tempHome();
const realistic = await loadRealisticRecord(here);
writeFileSync(join(home.path, 'answer.json'), JSON.stringify(appAnswer(realistic)));
const app = spawnNode([join(here, 'bench/floors/app.mjs'), join(home.path, 'answer.json')], /app listening on (\S+)/);
const appUrl = await app.ready;

async function start(root, name) {
  const dir = join(home.path, name);
  const daemon = spawnDaemon(join(root, 'packages/daemon/dist/taplined.js'), dir);
  const url = await daemon.ready;
  const token = readFileSync(join(dir, 'token'), 'utf8').trim();
  await createSource(url, token, 'ab');
  const proxy = spawnProxy(root, { url, token, source: 'ab', target: appUrl });
  return { name, daemon, proxy, url: await proxy.ready };
}
const sides = [await start(other, 'before'), await start(here, 'after')];
const results = Object.fromEntries(sides.map((s) => [s.name, []]));
for (let round = 0; round <= Number(rounds); round++) {
  for (const side of sides) {
    const cpu0 = cpuMs(side.proxy.child.pid) + cpuMs(side.daemon.child.pid);
    const r = throughput(
      await autocannon(here, [
        '-c',
        '20',
        '-d',
        round === 0 ? '2' : seconds,
        '-H',
        'accept=application/json',
        `${side.url}/api/v1/orders?status=open&page=2`,
      ]),
      side.name,
    );
    const cpu = (cpuMs(side.proxy.child.pid) + cpuMs(side.daemon.child.pid) - cpu0) / r.count;
    if (round > 0) results[side.name].push({ perSecond: r.perSecond, cpu });
  }
  if (round > 0)
    process.stderr.write(
      `round ${round}: ${sides.map((s) => `${s.name} ${results[s.name].at(-1).perSecond.toFixed(0)}/s ${results[s.name].at(-1).cpu.toFixed(3)} ms CPU`).join(', ')}\n`,
    );
}
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const ratio = median(results.after.map((r, i) => r.perSecond / results.before[i].perSecond));
process.stdout.write(
  `median after/before throughput ${ratio.toFixed(2)}x; CPU ms per request before ${median(results.before.map((r) => r.cpu)).toFixed(3)}, after ${median(results.after.map((r) => r.cpu)).toFixed(3)}\n`,
);
for (const side of sides) {
  await side.proxy.stop();
  await side.daemon.stop();
}
await app.stop();
home.remove();
