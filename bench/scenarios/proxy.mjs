// `tapline proxy` (recording to a real daemon) against its peers in the same run: nginx
// `proxy_pass` (the floor), a reverse proxy on bare node:http that records nothing (what any Node
// proxy pays here, bench/floors/node-proxy.mjs) and mitmproxy in reverse mode (another recording
// proxy), all in front of one app answering a realistic response (bench/floors/app.mjs). Max throughput: 20 connections
// from autocannon, rounds of nginx, mitmproxy, Tapline. Added latency: 200 requests/s to one proxy
// and to the app direct, open loop and alternating per tick (bench/floors/open-loop.mjs), the
// proxies in turn within each round; a proxy's p50/p99 minus the direct p50/p99 of its phase. Targets (issue 17): >= 0.3x nginx, added
// p99 <= 2 ms, nothing unrecorded. Peers come from Debian's packages (bench/peers.mjs).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  api,
  autocannon,
  cpuMs,
  createSource,
  percentile,
  spawnNode,
  spawnProxy,
  startDaemon,
  throughput,
} from '../lib.mjs';
import { figure, interleave, pluck, versus } from '../figures.mjs';
import { ensurePeer, startMitmproxy, startNginx } from '../peers.mjs';
import { loadRealisticRecord } from '../ts.mjs';

export const figures = [
  'proxy max requests/s',
  'nginx max requests/s',
  'mitmproxy max requests/s',
  'node:http proxy max requests/s',
  'proxy added p50 ms',
  'proxy added p99 ms',
  'nginx added p50 ms',
  'nginx added p99 ms',
  'mitmproxy added p50 ms',
  'mitmproxy added p99 ms',
  'node:http proxy added p50 ms',
  'node:http proxy added p99 ms',
  'direct p99 ms at 200 req/s',
  'proxy + daemon CPU ms per request',
  'requests answered but not recorded',
];

const RATE = 200;
// Quick mode proves the path, not the latency: a lower rate keeps a busy CI machine from queueing.
const QUICK_RATE = 50;

/** The app's answer: the first realistic GET that succeeded, as the proxied endpoint's response. */
export function appAnswer(realisticRecord) {
  for (let seed = 0; ; seed++) {
    const r = realisticRecord(seed);
    if (r.method === 'GET' && r.status === 200) return { headers: r.responseHeaders, body: r.responseBody };
  }
}

async function storedCount(daemon, sourceId, expected) {
  let last = -1;
  for (let i = 0; i < 60; i++) {
    const total = (await api(daemon.url, daemon.token, 'GET', `/http-traffic/${sourceId}?limit=1`)).meta.total;
    if (total >= expected || total === last) return total;
    last = total;
    await new Promise((r) => setTimeout(r, 500));
  }
  return last;
}

export default async function run({ root, log, quick, tmp }) {
  const [rounds, seconds, latencySeconds, rate] = quick ? [1, 1, 1, QUICK_RATE] : [5, 10, 6, RATE];
  const home = tmp();
  const skipped = {};
  const stops = [];
  const daemon = await startDaemon(root, home.path);
  stops.push(daemon.stop);
  try {
    writeFileSync(join(home.path, 'answer.json'), JSON.stringify(appAnswer(await loadRealisticRecord(root))));
    const app = spawnNode(
      [join(root, 'bench', 'floors', 'app.mjs'), join(home.path, 'answer.json')],
      /app listening on (\S+)/,
    );
    stops.push(app.stop);
    const appUrl = await app.ready;
    const source = await createSource(daemon.url, daemon.token, 'proxy-bench');
    const proxy = spawnProxy(root, { url: daemon.url, token: daemon.token, source: 'proxy-bench', target: appUrl });
    stops.unshift(proxy.stop);
    const nodeProxy = spawnNode(
      [join(root, 'bench', 'floors', 'node-proxy.mjs'), appUrl],
      /node proxy listening on (\S+)/,
    );
    stops.push(nodeProxy.stop);
    const targets = { tapline: await proxy.ready, 'node:http proxy': await nodeProxy.ready };
    for (const [name, start] of [
      ['nginx', startNginx],
      ['mitmproxy', startMitmproxy],
    ]) {
      const peer = ensurePeer(name, log);
      if (peer.skipped) skipped[name] = peer.skipped;
      else {
        const started = await start(peer.path, home.path, appUrl);
        stops.push(started.stop);
        targets[name] = started.url;
      }
    }

    let answered = 0;
    let loadAnswered = 0; // under autocannon, where the CPU is measured
    let cpu = 0;
    const load = async (name) => {
      const cpuBefore = name === 'tapline' ? cpuMs(proxy.child.pid) + cpuMs(daemon.child.pid) : 0;
      const args = [
        '-c',
        '20',
        ...(quick ? ['-a', '200'] : ['-d', String(seconds)]),
        '-H',
        'accept=application/json',
        `${targets[name]}/api/v1/orders?status=open&page=2`,
      ];
      const result = throughput(await autocannon(root, args), name);
      if (name === 'tapline') {
        answered += result.count;
        loadAnswered += result.count;
        cpu += cpuMs(proxy.child.pid) + cpuMs(daemon.child.pid) - cpuBefore;
      }
      return result.perSecond;
    };
    const peers = Object.keys(targets).filter((n) => n !== 'tapline');
    log(`max throughput: ${rounds} rounds of ${peers.join(', ')}, Tapline at 20 connections`);
    const max = await interleave(
      rounds,
      [...peers, 'tapline'].map((name) => [name, () => load(name)]),
      log,
    );

    // Added latency, one proxy at a time beside the app direct (so no proxy's queue or GC shows in
    // another's figure), the proxies interleaved by round like the throughput.
    log(
      `added latency: ${rate} requests/s to the app direct and through one proxy at a time, ${rounds} rounds of ${latencySeconds} s each`,
    );
    const addedLatency = async (name) => {
      const args = [
        String(rate),
        quick ? '0' : '1',
        '1',
        String(latencySeconds),
        `direct=${appUrl}`,
        `${name}=${targets[name]}`,
      ];
      const measured = JSON.parse(
        await spawnNode([join(root, 'bench', 'floors', 'open-loop.mjs'), ...args], /^(\{.*\})\n/s).ready,
      );
      if (Object.values(measured.failed).some((n) => n > 0))
        throw new Error(`open-loop requests failed: ${JSON.stringify(measured.failed)}`);
      if (name === 'tapline') answered += measured.sent;
      const [samples] = measured.rounds;
      const at = (who, p) =>
        percentile(
          samples[who].sort((a, b) => a - b),
          p,
        );
      return { p50: at(name, 50) - at('direct', 50), p99: at(name, 99) - at('direct', 99), direct99: at('direct', 99) };
    };
    const latency = await interleave(
      rounds,
      [...peers, 'tapline'].map((name) => [name, () => addedLatency(name)]),
      log,
    );

    await proxy.stop();
    stops.shift();
    const stored = await storedCount(daemon, source.id, answered);
    const maxFloors = Object.fromEntries(peers.map((name) => [name, max[name]]));
    const result = {
      'proxy max requests/s': versus('requests/s', max.tapline, maxFloors),
      'direct p99 ms at 200 req/s': figure('ms', pluck(latency.tapline, 'direct99')),
      'proxy + daemon CPU ms per request': figure('ms', [cpu / loadAnswered]),
      'requests answered but not recorded': figure('requests', [Math.max(0, answered - stored)]),
    };
    for (const [name, label] of [['tapline', 'proxy'], ...peers.map((p) => [p, p])]) {
      result[`${label} added p50 ms`] = figure('ms', pluck(latency[name], 'p50'));
      result[`${label} added p99 ms`] = figure('ms', pluck(latency[name], 'p99'));
      if (name !== 'tapline') result[`${name} max requests/s`] = figure('requests/s', max[name]);
    }
    return { figures: result, skipped };
  } finally {
    for (const stop of stops) await stop();
    home.remove();
  }
}
