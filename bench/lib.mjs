// Shared by the scenarios: spawn the built daemon (or any server) on a free loopback port in a
// temporary home, drive autocannon in its own process, read a process's CPU and memory.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function tempHome() {
  const path = mkdtempSync(join(tmpdir(), 'tapline-bench-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * What the A/B scripts of a start (ab-cold-start.mjs, ab-start-cpu.mjs) share: the two builds from
 * `BEFORE_TAPLINED_JS [rounds]` (this checkout's is `after`), and temporary homes, removed together.
 */
export function twoBuilds(script, argv) {
  const [before, rounds = '10'] = argv;
  if (!before) throw new Error(`usage: node bench/${script} BEFORE_TAPLINED_JS [rounds]`);
  const homes = [];
  return {
    rounds: Number(rounds),
    sides: [
      { name: 'before', entry: before },
      { name: 'after', entry: join(import.meta.dirname, '..', 'packages/daemon/dist/taplined.js') },
    ],
    home: () => (homes.push(tempHome()), homes.at(-1).path),
    removeHomes: () => homes.forEach((h) => h.remove()),
  };
}

/** Flags for a daemon whose data a scenario measures: no retention and no size budget prune it meanwhile. */
export const KEEP_EVERYTHING = ['--retention', 'off', '--max-db-size', 'off'];

export async function startDaemon(root, home, args = []) {
  const child = spawn(
    process.execPath,
    [join(root, 'packages/daemon/dist/taplined.js'), '--port', '0', '--home', home, '--log-level', 'warn', ...args],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const url = await new Promise((resolve, reject) => {
    let seen = '';
    child.stdout.on('data', (chunk) => {
      seen += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(seen);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`taplined exited with ${code}`)));
  });
  const token = readFileSync(join(home, 'token'), 'utf8').trim();
  return { url, token, child, stop: () => stopChild(child) };
}

export async function api(url, token, method, path, body) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * The nearest-rank percentile of sorted samples: the smallest value with at least p% of the
 * samples at or below it. (It was `floor(p% of n)` as an index, one past the rank: the p99 of 100
 * samples was their maximum.)
 */
export const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p * sorted.length) / 100) - 1))];

/** Runs autocannon in its own process (so load generation does not share the daemon's event loop). */
export async function autocannon(root, args) {
  const bin = join(root, 'node_modules', 'autocannon', 'autocannon.js');
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [bin, '--json', ...args], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`autocannon failed: ${stderr || error.message}`));
      resolve(JSON.parse(stdout));
    });
  });
}

/** Requests/s answered with 2xx, and latency, of one autocannon run; throws on any failure. */
export function throughput(result, what, perRequest = 1) {
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0)
    throw new Error(`${what}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} time-outs`);
  return {
    perSecond: (result['2xx'] * perRequest) / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    count: result['2xx'],
  };
}

export async function createSource(url, token, name) {
  return api(url, token, 'POST', '/traffic-source', { name, trafficDomain: 'shop.example.com' });
}

/**
 * The record single composes post: the first realistic record (packages/testkit) that is a POST of
 * 1.6 KB or more, near the top of the realistic range, so a compose is never measured light.
 */
export function composeRecord(realisticRecord, sourceId) {
  for (let seed = 0; ; seed++) {
    const record = realisticRecord(seed, sourceId);
    if (record.method === 'POST' && Buffer.byteLength(JSON.stringify(record)) >= 1600) return record;
  }
}

/** Spawns `node args` and resolves `ready` with the first capture of `pattern` on its stdout. */
export function spawnNode(args, pattern) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
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
  return { child, ready, stop: () => stopChild(child, 'SIGINT') };
}

/**
 * A daemon (`entry`, a built taplined.js) in `home` on a free loopback port: `spawnNode`'s handle,
 * `ready` with its URL. `nodeFlags` go to node before the script, `args` after the daemon's own.
 */
export function spawnDaemon(entry, home, { nodeFlags = [], args = [] } = {}) {
  return spawnNode(
    [...nodeFlags, entry, '--port', '0', '--home', home, '--log-level', 'warn', ...args],
    /listening on (http:\/\/\S+)/,
  );
}

/**
 * The built `tapline proxy` of checkout `root`, recording to `source` on the daemon at `url`, in
 * front of `target`, on a free loopback port: `spawnNode`'s handle, `ready` with the proxy's URL.
 * `nodeFlags` go to node before the script, `extra` to the command after its own options.
 */
export function spawnProxy(root, { url, token, source, target, nodeFlags = [], extra = [] }) {
  return spawnNode(
    [
      ...nodeFlags,
      join(root, 'packages/cli/dist/tapline.js'),
      '--url',
      url,
      '--token',
      token,
      'proxy',
      '--source',
      source,
      '--target',
      target,
      '--listen',
      '127.0.0.1:0',
      ...extra,
    ],
    /tapline proxy listening on (\S+)/,
  );
}

/** Signals `child` (unless it has exited) and resolves once it has. */
export function stopChild(child, signal = 'SIGTERM') {
  return new Promise((resolve) =>
    child.exitCode !== null ? resolve() : (child.once('exit', resolve), child.kill(signal)),
  );
}

/** `/proc/<pid>/stat` fields after the command name (Linux only; the bench targets Linux). */
const stat = (pid) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');

/** User plus system CPU a process has used, in ms (utime and stime are in USER_HZ, 100). */
export const cpuMs = (pid) => ((Number(stat(pid)[11]) + Number(stat(pid)[12])) * 1000) / 100;

/** The same for one thread of `pid` (its main thread's id is the pid). */
export const threadCpuMs = (pid, tid) => {
  const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
};

/** Resident set size in MiB (`VmRSS`, or with `field` e.g. `VmHWM`, the peak since the process started). */
export function rssMiB(pid, field = 'VmRSS') {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(/\d+/.exec(line ?? '')?.[0] ?? Number.NaN) / 1024;
}
