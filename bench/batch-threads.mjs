// `node bench/batch-threads.mjs [TAPLINED_JS] [seconds] [records a batch]`: the daemon's CPU per
// record, thread by thread, under batches of 1,000 (or as many as asked) realistic records on 4
// connections (as the batch scenario sends them). Linux's per-thread counters (/proc/<pid>/task/*/stat, 10 ms ticks) are read before and
// after the timed load; every thread is called `node`, so they are told apart by when they
// appeared: the main thread (the event loop), the threads there before the first batch (V8's
// platform workers, which run its parallel and concurrent garbage collection and compilation), and
// those the first batch started (the batch worker thread). Shares, not rates: the machine's other
// load changes the records per second, much less the CPU each record costs.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { autocannon, createSource, spawnDaemon, tempHome } from './lib.mjs';
import { loadRealisticRecord } from './ts.mjs';

const root = join(import.meta.dirname, '..');
const [entry = join(root, 'packages/daemon/dist/taplined.js'), seconds = '10', size = '1000'] = process.argv.slice(2);
const home = tempHome();
const daemon = spawnDaemon(entry, home.path);
const url = await daemon.ready;
const { pid } = daemon.child;
const token = readFileSync(join(home.path, 'token'), 'utf8').trim();
const source = await createSource(url, token, 'threads');
const realistic = await loadRealisticRecord(root);
const body = join(home.path, 'batch.json');
writeFileSync(body, JSON.stringify(Array.from({ length: Number(size) }, (_, seed) => realistic(seed, source.id))));

/** CPU ms of every thread of the daemon, by thread id. */
function threads() {
  return new Map(
    readdirSync(`/proc/${pid}/task`).map((tid) => {
      const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
      return [tid, (Number(fields[11]) + Number(fields[12])) * 10];
    }),
  );
}
const before = threads();
const args = ['-m', 'POST', '-H', 'content-type=application/json', '-H', `authorization=Bearer ${token}`];
const load = (duration) =>
  autocannon(root, [...args, '-c', '4', '-i', body, '-d', duration, `${url}/http-traffic-record/${source.id}/batch`]);
await load('3'); // warm-up: the worker thread, the source's dictionary, the JIT
const start = threads();
const result = await load(seconds);
const end = threads();
await daemon.stop();
home.remove();

const records = result['2xx'] * Number(size);
const kindOf = (tid) => (tid === String(pid) ? 'main thread' : before.has(tid) ? 'V8/Node helpers' : 'batch worker');
const byKind = new Map();
for (const [tid, ms] of end) {
  const used = ms - (start.get(tid) ?? 0);
  byKind.set(kindOf(tid), (byKind.get(kindOf(tid)) ?? 0) + used);
}
const total = [...byKind.values()].reduce((a, b) => a + b, 0);
process.stdout.write(`${Math.round(records / result.duration)} records/s\n`);
for (const [kind, ms] of [...byKind, ['all threads', total]])
  process.stdout.write(`  ${kind.padEnd(16)} ${((ms * 1000) / records).toFixed(0).padStart(5)} µs/record\n`);
