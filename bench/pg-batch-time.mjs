// `node bench/pg-batch-time.mjs [TAPLINED_JS] [seconds] [-- daemon flags…]`: where a batch of 1,000's
// wall time goes on PostgreSQL. A throwaway durable cluster (the bench's) logging every statement
// with its duration (`log_min_duration_statement = 0`, switched on after the warm-up), a daemon on
// it, batches of 1,000 realistic records on 4 connections (as the batch scenario sends them); per
// batch stored: the wall time, the CPU of the daemon's threads (the event loop, the batch worker,
// V8's helpers, told apart as bench/batch-threads.mjs does) and of PostgreSQL's processes, and the
// statements' durations as PostgreSQL logged them, by kind. Shares, not rates: the log slows
// PostgreSQL a little, and the machine's other load changes the wall time.
// With `--single`: single composes on 50 connections instead, per group commit (a `commit` logged):
// the statements and round trips (each logged statement or execute is one) a group takes.
// `DAEMON_NODE_FLAGS='--trace-gc'` (Node or V8 flags for the daemon): also its collections a batch,
// by kind and isolate (numbered in the order they first collect in the window: the event loop's
// and the batch worker's), with their pauses; `GC_LOG_FILE=…` keeps the daemon's output of the
// window (with `--trace-opt --trace-deopt`, what V8 compiled and threw away).
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { autocannon, composeRecord, createSource, spawnDaemon, tempHome } from './lib.mjs';
import { importTs, loadRealisticRecord } from './ts.mjs';

const root = join(import.meta.dirname, '..');
const dash = process.argv.indexOf('--');
const own = (dash < 0 ? process.argv.slice(2) : process.argv.slice(2, dash)).filter((a) => a !== '--single');
const single = own.length !== (dash < 0 ? process.argv.length - 2 : dash - 2);
const daemonFlags = dash < 0 ? [] : process.argv.slice(dash + 1);
const [entry = join(root, 'packages/daemon/dist/taplined.js'), seconds = '10'] = own;

const cluster = await (
  await importTs(root, 'packages/testkit/src/postgres/cluster.ts')
).startCluster({ durable: true });
const logs = mkdtempSync(join(tmpdir(), 'tapline-pglog-'));
if (process.getuid?.() === 0) {
  const id = (flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  chownSync(logs, id('-u'), id('-g'));
}
const pg = createRequire(join(root, 'packages/daemon/package.json'))('pg');
const admin = async (...statements) => {
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  for (const s of statements) await client.query(s);
  await client.end();
};
await admin(
  'alter system set logging_collector = on',
  `alter system set log_directory = '${logs}'`,
  "alter system set log_filename = 'pg.log'",
);
await cluster.stopFast();
await cluster.start();

const home = tempHome();
const nodeFlags = (process.env.DAEMON_NODE_FLAGS ?? '').split(' ').filter(Boolean);
const daemon = spawnDaemon(entry, home.path, { nodeFlags, args: ['--db', cluster.url, ...daemonFlags] });
let gcLog = '';
daemon.child.stdout.on('data', (c) => (gcLog += c));
const url = await daemon.ready;
const { pid } = daemon.child;
const token = readFileSync(join(home.path, 'token'), 'utf8').trim();
const source = await createSource(url, token, 'pg-batch-time');
const realistic = await loadRealisticRecord(root);
const body = join(home.path, 'batch.json');
writeFileSync(
  body,
  JSON.stringify(
    single
      ? composeRecord(realistic, source.id)
      : Array.from({ length: 1000 }, (_, seed) => realistic(seed, source.id)),
  ),
);

const ticks = (path) => {
  const fields = readFileSync(path, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const threads = () => new Map(readdirSync(`/proc/${pid}/task`).map((t) => [t, ticks(`/proc/${pid}/task/${t}/stat`)]));
/** CPU ms of every PostgreSQL process now running (the server's, its backends' and helpers'). */
const postgresMs = () =>
  readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .reduce((sum, p) => {
      try {
        return readFileSync(`/proc/${p}/comm`, 'utf8').trim() === 'postgres' ? sum + ticks(`/proc/${p}/stat`) : sum;
      } catch {
        return sum; // gone meanwhile
      }
    }, 0);

const before = threads();
const args = ['-m', 'POST', '-H', 'content-type=application/json', '-H', `authorization=Bearer ${token}`];
const load = (duration) =>
  autocannon(root, [
    ...args,
    ...['-c', single ? '50' : '4', '-i', body, '-d', duration],
    `${url}/http-traffic-record/${source.id}${single ? '' : '/batch'}`,
  ]);
await load('5'); // warm-up: the worker thread, the source's dictionary, the JIT
await admin('alter system set log_min_duration_statement = 0', 'select pg_reload_conf()');
await new Promise((resolve) => setTimeout(resolve, 200));
const start = threads();
const pgStart = postgresMs();
const gcFrom = gcLog.length;
const result = await load(seconds);
const end = threads();
const pgEnd = postgresMs();
const gcLines = gcLog.slice(gcFrom).split('\n');
if (process.env.GC_LOG_FILE) writeFileSync(process.env.GC_LOG_FILE, gcLines.join('\n'));
await admin('alter system set log_min_duration_statement = -1', 'select pg_reload_conf()');
await daemon.stop();
await cluster.stop();
home.remove();

// Batches: per batch stored. Single composes: per group commit.
const commits = [...readFileSync(join(logs, 'pg.log'), 'utf8').matchAll(/(?:: |;\n)commit$/gm)].length;
const batches = single ? commits : result['2xx'];
const kindOf = (tid) => (tid === String(pid) ? 'event loop' : before.has(tid) ? 'V8/Node helpers' : 'batch worker');
const cpu = new Map();
for (const [tid, ms] of end) cpu.set(kindOf(tid), (cpu.get(kindOf(tid)) ?? 0) + ms - (start.get(tid) ?? 0));
cpu.set('PostgreSQL', pgEnd - pgStart);

// The log's lines: `… LOG:  duration: 1.234 ms  statement|parse|bind|execute <name>: sql`.
const kinds = new Map();
const text = readFileSync(join(logs, 'pg.log'), 'utf8');
rmSync(logs, { recursive: true, force: true });
for (const match of text.matchAll(/duration: ([\d.]+) ms {2}(statement|parse [^:]*|bind [^:]*|execute [^:]*): (.*)/g)) {
  const [, ms, step, sql] = match;
  const words = sql.replace(/\s+/g, ' ').replace(/\(.*$/, '').split(' ').slice(0, 4).join(' ');
  const key = `${step.split(' ')[0].padEnd(9)} ${words}`;
  const found = kinds.get(key) ?? { ms: 0, n: 0 };
  found.ms += Number(ms);
  found.n += 1;
  kinds.set(key, found);
}
const wall = (result.duration * 1000) / batches;
const unit = single ? 'group' : 'batch';
process.stdout.write(
  single
    ? `${result['2xx']} composes in ${result.duration} s, ${batches} groups (${(result['2xx'] / batches).toFixed(1)} a group): ${wall.toFixed(1)} ms of wall time a group\n`
    : `${batches} batches of 1,000 in ${result.duration} s: ${wall.toFixed(0)} ms of wall time a batch stored\n`,
);
process.stdout.write(`CPU a ${unit}:\n`);
for (const [kind, ms] of cpu)
  process.stdout.write(`  ${kind.padEnd(16)} ${(ms / batches).toFixed(1).padStart(7)} ms\n`);
if (nodeFlags.includes('--trace-gc')) {
  // `[pid:0x…] 1234 ms: Scavenge 12.3 (14.0) -> 11.1 (15.0) MB, 1.2 / 0.0 ms …`: the main isolate's and the worker's alike.
  const gcs = new Map();
  const isolates = new Set();
  for (const line of gcLines) {
    const match = /ms: (Scavenge|Mark-Compact|Mark-sweep|Minor Mark-Compact)[^,]*, ([\d.]+) \/ ([\d.]+) ms/.exec(line);
    if (!match) continue;
    const isolate = /^\[\d+:(0x[0-9a-f]+)\]/.exec(line)?.[1] ?? '?';
    isolates.add(isolate);
    const key = `${match[1]} (isolate ${[...isolates].indexOf(isolate)})`;
    const found = gcs.get(key) ?? { n: 0, ms: 0 };
    found.n += 1;
    found.ms += Number(match[2]);
    gcs.set(key, found);
  }
  process.stdout.write(`collections a ${unit} (all isolates; count, ms of pause):\n`);
  for (const [kind, { n, ms }] of gcs)
    process.stdout.write(
      `  ${kind.padEnd(28)} ${(n / batches).toFixed(2).padStart(7)} ${(ms / batches).toFixed(1).padStart(7)} ms\n`,
    );
}
process.stdout.write(`statements a ${unit}, as PostgreSQL logged them (ms, count):\n`);
let logged = 0;
let trips = 0;
for (const [key, { ms, n }] of [...kinds].sort((a, b) => b[1].ms - a[1].ms)) {
  logged += ms;
  if (/^(statement|execute)/.test(key)) trips += n;
  process.stdout.write(`  ${(ms / batches).toFixed(2).padStart(8)}  ${(n / batches).toFixed(1).padStart(5)}  ${key}\n`);
}
process.stdout.write(
  `  ${(logged / batches).toFixed(2).padStart(8)}  ${(trips / batches).toFixed(1).padStart(5)}  round trips in all\n`,
);
