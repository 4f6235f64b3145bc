// Issue 5: the latency `tapline proxy` adds, proxied vs direct in the same run, at 200 requests/s
// each (targets: p50 overhead < 1 ms, p99 < 5 ms). The app, the proxy (recording to a real daemon)
// and the load each run in their own process. The load is open-loop: requests leave on a fixed
// schedule whether or not earlier ones have answered, and each tick sends one direct and one
// proxied request, in alternating order, so both see the same machine at the same moment.
// autocannon is not used here: it reports whole milliseconds, too coarse for a 1 ms target.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import http from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { api, createSource, percentile, startDaemon, tempHome } from '../lib.mjs';

const RATE = 200;
const WARMUP_S = 3;
const MEASURE_S = 15;
const self = fileURLToPath(import.meta.url);

if (process.argv[1] === self && process.argv[2] === '--app') runApp();
if (process.argv[1] === self && process.argv[2] === '--load') await runLoad(process.argv[3], process.argv[4]);

/** A small JSON API, as a typical app endpoint answers. */
function runApp() {
  const body = JSON.stringify({ id: 42, name: 'widget', tags: ['a', 'b', 'c'], price: 9.99, stock: 120, updatedAt: '2026-11-21T10:00:00.000Z' });
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body));
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`app listening on http://127.0.0.1:${server.address().port}\n`));
}

/** Prints `{ direct: [ms...], proxied: [ms...] }` of the measured phase. */
async function runLoad(directUrl, proxiedUrl) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const once = (url) =>
    new Promise((resolve) => {
      const started = process.hrtime.bigint();
      const req = http.get(`${url}/api/items/42?fields=all`, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode === 200 ? Number(process.hrtime.bigint() - started) / 1e6 : Number.NaN));
      });
      req.on('error', () => resolve(Number.NaN));
    });
  const samples = { direct: [], proxied: [], failed: 0 };
  const phase = async (seconds, keep) => {
    const pending = [];
    const start = performance.now();
    for (let i = 0; i < seconds * RATE; i++) {
      const due = start + (i * 1000) / RATE;
      const wait = due - performance.now();
      // Timer-paced, not spun: a spinning loader would steal a core from what it measures.
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const order = i % 2 === 0 ? ['direct', 'proxied'] : ['proxied', 'direct'];
      for (const which of order) {
        pending.push(
          once(which === 'direct' ? directUrl : proxiedUrl).then((ms) => {
            if (!keep) return;
            if (Number.isNaN(ms)) samples.failed++;
            else samples[which].push(ms);
          }),
        );
      }
    }
    await Promise.all(pending);
  };
  await phase(WARMUP_S, false);
  await phase(MEASURE_S, true);
  agent.destroy();
  process.stdout.write(JSON.stringify(samples));
}

function spawnUntil(args, pattern, env = process.env) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  const ready = new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      const match = pattern.exec(out);
      if (match) resolve(match[1]);
    });
    child.once('close', (code) => reject(new Error(`${args[0]} exited with ${code}: ${err}`)));
  });
  const stop = () => new Promise((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', resolve), child.kill('SIGINT'))));
  return { child, ready, stop, stderr: () => err };
}

const round = (n) => Math.round(n * 1000) / 1000;

/** User + system CPU a process has used, in ms (Linux); null elsewhere. */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

export default async function run({ root, log }) {
  const home = tempHome();
  const daemon = await startDaemon(root, home.path);
  const app = spawnUntil([self, '--app'], /app listening on (\S+)/);
  let proxy;
  try {
    const source = await createSource(daemon.url, daemon.token, 'proxy-bench');
    const appUrl = await app.ready;
    proxy = spawnUntil(
      [join(root, 'packages/cli/dist/tapline.js'), '--url', daemon.url, '--token', daemon.token, 'proxy', '--source', 'proxy-bench', '--target', appUrl, '--listen', '127.0.0.1:0'],
      /tapline proxy listening on (\S+)/,
    );
    const proxyUrl = await proxy.ready;
    log(`${RATE} requests/s each to the app direct and through the proxy: ${WARMUP_S} s warm-up, ${MEASURE_S} s measured`);
    const cpuBefore = cpuMs(proxy.child.pid);
    const load = spawnUntil([self, '--load', appUrl, proxyUrl], /^(\{.*\})$/s);
    const samples = JSON.parse(await load.ready);
    const cpuAfter = cpuMs(proxy.child.pid);
    const direct = samples.direct.sort((a, b) => a - b);
    const proxied = samples.proxied.sort((a, b) => a - b);
    await proxy.stop();
    const stored = (await api(daemon.url, daemon.token, 'GET', `/http-traffic/${source.id}?limit=1`)).meta.total;
    return {
      'direct p50 / p99 ms': `${round(percentile(direct, 50))} / ${round(percentile(direct, 99))}`,
      'proxied p50 / p99 ms': `${round(percentile(proxied, 50))} / ${round(percentile(proxied, 99))}`,
      'proxy overhead p50 ms (target < 1)': round(percentile(proxied, 50) - percentile(direct, 50)),
      'proxy overhead p99 ms (target < 5)': round(percentile(proxied, 99) - percentile(direct, 99)),
      'requests measured (direct / proxied / failed)': `${direct.length} / ${proxied.length} / ${samples.failed}`,
      'records stored by the daemon': `${stored} of ${(WARMUP_S + MEASURE_S) * RATE}`,
      'proxy CPU per proxied request ms': cpuBefore === null || cpuAfter === null ? 'n/a' : round((cpuAfter - cpuBefore) / ((WARMUP_S + MEASURE_S) * RATE)),
      // Latency figures only mean something on an otherwise idle machine; this says how idle it was.
      'machine load average (1 min) / cores': `${loadavg()[0].toFixed(1)} / ${cpus().length}`,
    };
  } finally {
    await proxy?.stop();
    await app.stop();
    await daemon.stop();
    home.remove();
  }
}
