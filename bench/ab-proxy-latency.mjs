// `node bench/ab-proxy-latency.mjs [rounds] [seconds] SIDE...`: the added latency of proxies side
// by side, as the `proxy` scenario measures it (200 requests/s, open loop, one proxy at a time
// beside the app direct, bench/floors/open-loop.mjs), the sides in turn within each round. A SIDE
// is `label=ROOT` (that checkout's built `tapline proxy`, with its own daemon), optionally
// `label=ROOT|--node-flag,--node-flag|--proxy-arg,value|DAEMON` where DAEMON lists the daemon's
// node flags (`--flag`), its own options written `+option` (`+no-lean-heap`) and `nice` (every
// thread of it at nice 19), or `label=node` (the bare node:http
// proxy, bench/floors/node-proxy.mjs). For a change to the proxy's tail on a shared machine, where
// only figures taken side by side mean anything. Prints each round's added p50/p99 and medians,
// and the paired excess: each proxied request's time less that of the direct request sent in the
// same tick, its p90 and p99 (steadier than a difference of p99s while others load the machine).
// SATURATE=<seconds>: each side is first loaded to saturation that long, as the scenario's
// throughput rounds load its proxy before the latency rounds.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { autocannon, cpuMs, createSource, percentile, spawnDaemon, spawnNode, spawnProxy, tempHome } from './lib.mjs';
import { loadRealisticRecord } from './ts.mjs';
import { appAnswer } from './scenarios/proxy.mjs';

const here = join(import.meta.dirname, '..');
process.env.OPEN_LOOP_TICKS = '1';
const [rounds, seconds, ...specs] = process.argv.slice(2);
if (specs.length === 0) throw new Error('usage: node bench/ab-proxy-latency.mjs ROUNDS SECONDS label=ROOT...');
const RATE = 200;
const home = tempHome();
writeFileSync(join(home.path, 'answer.json'), JSON.stringify(appAnswer(await loadRealisticRecord(here))));
const app = spawnNode([join(here, 'bench/floors/app.mjs'), join(home.path, 'answer.json')], /app listening on (\S+)/);
const appUrl = await app.ready;
const stops = [app.stop];

async function start(spec) {
  const label = spec.slice(0, spec.indexOf('='));
  const [root, flags = '', extra = '', daemonFlags = ''] = spec.slice(spec.indexOf('=') + 1).split('|');
  const daemonNode = daemonFlags.split(',').filter((flag) => flag.startsWith('--'));
  const daemonArgs = daemonFlags.split(',').filter((flag) => flag.startsWith('+'));
  if (root === 'node') {
    const proxy = spawnNode([join(here, 'bench/floors/node-proxy.mjs'), appUrl], /node proxy listening on (\S+)/);
    stops.unshift(proxy.stop);
    return { label, url: await proxy.ready, pids: [proxy.child.pid] };
  }
  const dir = join(home.path, label);
  const daemon = spawnDaemon(join(root, 'packages/daemon/dist/taplined.js'), dir, {
    nodeFlags: daemonNode,
    args: daemonArgs.map((arg) => arg.replace(/^\+/, '--')),
  });
  stops.push(daemon.stop);
  const url = await daemon.ready;
  const token = readFileSync(join(dir, 'token'), 'utf8').trim();
  await createSource(url, token, 'ab');
  const proxy = spawnProxy(root, {
    url,
    token,
    source: 'ab',
    target: appUrl,
    nodeFlags: flags.split(',').filter(Boolean),
    extra: extra.split(',').filter(Boolean),
  });
  stops.unshift(proxy.stop);
  return {
    label,
    url: await proxy.ready,
    pids: [proxy.child.pid, daemon.child.pid],
    daemonPid: daemonFlags.split(',').includes('nice') ? daemon.child.pid : undefined,
  };
}

/** Lowers every thread of a process to nice 19 (Linux: niceness is per thread; workers come and go). */
const renice = (pid) => {
  for (const tid of readdirSync(`/proc/${pid}/task`)) setPriority(Number(tid), 19);
};

const sides = [];
for (const spec of specs) sides.push(await start(spec));
// The scenario measures latency after its throughput rounds, when each proxy's heap has grown to
// what load makes of it: SATURATE=<seconds> gives each side that much load at 20 connections first.
for (const side of sides.filter(() => process.env.SATURATE))
  await autocannon(here, ['-c', '20', '-d', process.env.SATURATE, `${side.url}/api/v1/orders?status=open&page=2`]);
const results = Object.fromEntries(sides.map((s) => [s.label, []]));
const sorted = (a) => [...a].sort((x, y) => x - y);
for (let round = 1; round <= Number(rounds); round++) {
  for (const side of sides) {
    if (side.daemonPid) renice(side.daemonPid);
    const args = [String(RATE), '1', '1', seconds, `direct=${appUrl}`, `${side.label}=${side.url}`];
    const cpu = () => side.pids.map((pid) => cpuMs(pid));
    const cpu0 = cpu();
    const measured = JSON.parse(
      await spawnNode([join(here, 'bench/floors/open-loop.mjs'), ...args], /^(\{.*\})\n/s).ready,
    );
    const [samples] = measured.rounds;
    const at = (who, p) => percentile(sorted(samples[who]), p);
    // Each proxied request against the direct one sent in the same tick: what the machine's load
    // does to both cancels out, which the difference of two p99s does not.
    const excess = sorted(samples.ticks.map(([direct, proxied]) => proxied - direct).filter((ms) => !Number.isNaN(ms)));
    results[side.label].push({
      p50: at(side.label, 50) - at('direct', 50),
      p99: at(side.label, 99) - at('direct', 99),
      direct99: at('direct', 99),
      excess90: percentile(excess, 90),
      excess99: percentile(excess, 99),
      failed: measured.failed[side.label],
      // Over the warm-up second too: the proxy's (and its daemon's) CPU for each request sent.
      cpuUs: cpu().map((ms, i) => ((ms - (cpu0[i] ?? 0)) * 1000) / measured.sent),
    });
  }
  process.stderr.write(
    `round ${round}: ${sides
      .map((s) => {
        const r = results[s.label].at(-1);
        return `${s.label} +${r.p50.toFixed(2)}/+${r.p99.toFixed(2)} (paired p90/p99 ${r.excess90.toFixed(2)}/${r.excess99.toFixed(2)}, direct p99 ${r.direct99.toFixed(2)}, ${r.cpuUs.map((us) => us.toFixed(0)).join(' + ')} µs CPU)`;
      })
      .join(', ')}\n`,
  );
}
const median = (a) => sorted(a)[a.length >> 1];
for (const side of sides) {
  const r = results[side.label];
  process.stdout.write(
    `${side.label}: added p50 ${median(r.map((x) => x.p50)).toFixed(2)} ms, p99 ${median(r.map((x) => x.p99)).toFixed(2)} ms (by round ${r.map((x) => x.p99.toFixed(2)).join(' ')}); paired excess p90 ${median(r.map((x) => x.excess90)).toFixed(2)} ms, p99 ${median(r.map((x) => x.excess99)).toFixed(2)} ms (by round ${r.map((x) => x.excess99.toFixed(2)).join(' ')}); CPU a request ${r[0]?.cpuUs.map((_, i) => median(r.map((x) => x.cpuUs[i] ?? 0)).toFixed(0)).join(' µs (proxy) + ')} µs (daemon); failed ${r.reduce((n, x) => n + x.failed, 0)}\n`,
  );
}
for (const stop of stops) await stop();
home.remove();
