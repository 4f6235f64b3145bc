// `node bench/perf-pg-single.mjs [TAPLINED_JS] [seconds]`: where a single compose's CPU goes on
// PostgreSQL, by process and by function, on both sides of the wire. A throwaway durable cluster
// (the bench's) with `pg_stat_statements`, a daemon on it under `--perf-basic-prof`, single composes
// on 50 connections (the bench's compose record); after a warm-up, one window in which are taken:
// the CPU (user and system, from /proc) of the daemon, of this cluster's processes and of the load
// generator; the statements' calls and times as `pg_stat_statements` counts them (planning
// included); and, where `perf` is installed and allowed, `perf record -a -g` over the window,
// reported by process and by symbol for the daemon and for PostgreSQL (kernel frames included, so a
// `writev`'s cost is told from the time spent waiting inside it). Shares, not rates: `perf` costs a
// little, and the machine's other load moves the wall time.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { autocannon, composeRecord, createSource, spawnDaemon, tempHome } from './lib.mjs';
import { sourceOf } from './source-map.mjs';
import { importTs, loadRealisticRecord } from './ts.mjs';

const root = join(import.meta.dirname, '..');
const [entry = join(root, 'packages/daemon/dist/taplined.js'), seconds = '10'] = process.argv.slice(2);

const cluster = await (
  await importTs(root, 'packages/testkit/src/postgres/cluster.ts')
).startCluster({ durable: true });
// Whatever fails below, the daemon and the cluster are stopped and the home removed.
let daemon;
let home;
let stopped = false;
const stopAll = async () => {
  if (stopped) return;
  stopped = true;
  await daemon?.stop();
  await cluster.stop();
  home?.remove();
};
try {
  const pg = createRequire(join(root, 'packages/daemon/package.json'))('pg');
  const admin = async (...statements) => {
    const client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
    const answers = [];
    for (const s of statements) answers.push((await client.query(s)).rows);
    await client.end();
    return answers;
  };
  await admin("alter system set shared_preload_libraries = 'pg_stat_statements'");
  await cluster.stopFast();
  await cluster.start();
  await admin(
    'create extension pg_stat_statements',
    'alter system set pg_stat_statements.track_planning = on',
    'select pg_reload_conf()',
  );

  home = tempHome();
  // --perf-basic-prof's symbols go to /tmp/perf-PID.map; without --logfile V8 also leaves a code log in the working folder.
  daemon = spawnDaemon(entry, home.path, {
    nodeFlags: ['--perf-basic-prof', '--logfile=/dev/null'],
    args: ['--db', cluster.url],
  });
  const url = await daemon.ready;
  const { pid } = daemon.child;
  const token = readFileSync(join(home.path, 'token'), 'utf8').trim();
  const source = await createSource(url, token, 'perf-pg-single');
  const record = composeRecord(await loadRealisticRecord(root), source.id);
  const args = [
    ...['-c', '50', '-m', 'POST', '-b', JSON.stringify(record)],
    ...['-H', 'content-type=application/json', '-H', `authorization=Bearer ${token}`],
    `${url}/http-traffic-record/${source.id}`,
  ];

  const port = new URL(cluster.url).port;
  const processes = () =>
    readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .flatMap((p) => {
        try {
          const stat = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ');
          const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
          return [
            { pid: Number(p), ppid: Number(stat[1]), cmd, user: Number(stat[11]) * 10, sys: Number(stat[12]) * 10 },
          ];
        } catch {
          return []; // gone meanwhile
        }
      });
  /** CPU ms (user, system) of the daemon, of this cluster's processes, and of the load generator. */
  const cpu = () => {
    const all = processes();
    const postmaster = all.find((p) => p.cmd[0].endsWith('/postgres') && p.cmd.includes(port))?.pid;
    const groups = { daemon: [pid], PostgreSQL: [], 'load generator': [] };
    for (const p of all) {
      if (p.pid === postmaster || p.ppid === postmaster) groups.PostgreSQL.push(p.pid);
      if (p.cmd.some((c) => c.endsWith('autocannon.js')) && p.cmd.some((c) => c.includes(url)))
        groups['load generator'].push(p.pid);
    }
    const sums = {};
    for (const [name, pids] of Object.entries(groups)) {
      const mine = all.filter((p) => pids.includes(p.pid));
      sums[name] = { user: mine.reduce((s, p) => s + p.user, 0), sys: mine.reduce((s, p) => s + p.sys, 0), pids };
    }
    return sums;
  };

  await autocannon(root, [...args, '-d', '5']); // warm-up: the JIT, the pool's connections
  await admin('select pg_stat_statements_reset()');
  const perfData = process.env.PERF_DATA ?? join(tmpdir(), `tapline-perf-${process.pid}.data`); // kept when named
  const perfAvailable = (() => {
    try {
      execFileSync('perf', ['--version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
  const load = autocannon(root, [...args, '-d', String(Number(seconds) + 2)]);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const from = cpu();
  const windowStart = Date.now();
  const walsFrom = (await admin('select wal_records, wal_bytes, wal_sync from pg_stat_wal'))[0][0];
  const perf = perfAvailable
    ? new Promise((resolve, reject) =>
        execFile('perf', ['record', '-a', '-g', '-F', '999', '-o', perfData, '--', 'sleep', seconds], (error) =>
          error ? reject(new Error(`perf record failed (not allowed here?): ${error.message}`)) : resolve(),
        ),
      )
    : new Promise((resolve) => setTimeout(resolve, Number(seconds) * 1000));
  await perf;
  const to = cpu();
  const windowSeconds = (Date.now() - windowStart) / 1000;
  const [[walsTo], statements] = await admin(
    'select wal_records, wal_bytes, wal_sync from pg_stat_wal',
    `select sum(calls) as calls, sum(rows) as rows, sum(total_exec_time) as total_exec_time,
          sum(total_plan_time) as total_plan_time, query
     from (select calls, rows, total_exec_time, total_plan_time,
                  left(regexp_replace(regexp_replace(query, '\\s+', ' ', 'g'), '\\$\\d+', '$', 'g'), 100) as query
             from pg_stat_statements) s
    group by query order by sum(total_exec_time + total_plan_time) desc limit 25`,
  );
  const result = await load;
  const records = (result['2xx'] / result.duration) * windowSeconds; // the window's share of the run
  const groups = Number(walsTo.wal_sync) - Number(walsFrom.wal_sync);

  const out = [];
  out.push(
    `${Math.round(result['2xx'] / result.duration)} records/s; in the ${windowSeconds.toFixed(1)} s window about ${Math.round(records)} records, ${groups} WAL flushes (${(records / groups).toFixed(1)} records a flush)`,
  );
  out.push(`load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
  out.push('CPU a record (µs, user + system):');
  for (const name of Object.keys(to)) {
    const user = ((to[name].user - from[name].user) * 1000) / records;
    const sys = ((to[name].sys - from[name].sys) * 1000) / records;
    out.push(`  ${name.padEnd(15)} ${(user + sys).toFixed(0).padStart(5)} = ${user.toFixed(0)} + ${sys.toFixed(0)}`);
  }
  out.push(
    `WAL a record: ${((Number(walsTo.wal_bytes) - Number(walsFrom.wal_bytes)) / records).toFixed(0)} bytes, ${((Number(walsTo.wal_records) - Number(walsFrom.wal_records)) / records).toFixed(1)} WAL records`,
  );
  const sum = (key) => statements.reduce((t, s) => t + Number(s[key]), 0);
  out.push(
    `statements in all: ${((sum('total_exec_time') * 1000) / records).toFixed(0)} µs a record executing, ${((sum('total_plan_time') * 1000) / records).toFixed(0)} planning (the top 25 kinds)`,
  );
  out.push(
    'statements (pg_stat_statements, the window and the 1 s before it): µs a record exec + plan, calls a record, rows a call',
  );
  for (const s of statements)
    out.push(
      `  ${((s.total_exec_time * 1000) / records).toFixed(1).padStart(6)} + ${((s.total_plan_time * 1000) / records).toFixed(1).padStart(5)}  ${(Number(s.calls) / records).toFixed(3).padStart(6)}  ${(Number(s.rows) / Math.max(1, Number(s.calls))).toFixed(1).padStart(6)}  ${s.query}`,
    );
  await stopAll();
  process.stdout.write(`${out.join('\n')}\ndaemon ${pid}, PostgreSQL ${to.PostgreSQL.pids.join(',')}\n`);

  if (perfAvailable && existsSync(perfData)) {
    const report = (pids, extra) =>
      execFileSync(
        'perf',
        [
          'report',
          '-i',
          perfData,
          '--stdio',
          '--no-children',
          '--percentage',
          'relative',
          '--percent-limit',
          '0.6',
          '--pid',
          pids.join(','),
          '-g',
          'none',
          ...extra,
        ],
        {
          encoding: 'utf8',
          maxBuffer: 256 * 1024 * 1024,
        },
      )
        .split('\n')
        .filter((l) => l.trim() && !l.startsWith('#'))
        .slice(0, 45)
        .join('\n');
    process.stdout.write(
      `\nperf, the daemon, by symbol (shares of its samples):\n${report(to.daemon.pids, ['--sort', 'dso,sym'])}\n`,
    );
    process.stdout.write(`\nperf, PostgreSQL, by symbol:\n${report(to.PostgreSQL.pids, ['--sort', 'dso,sym'])}\n`);
    // The stacks, folded: each sample of a process's threads with its frames, innermost first.
    const stacks = (pids) => {
      const text = execFileSync('perf', ['script', '-i', perfData, '--pid', pids.join(','), '-F', 'tid,ip,sym'], {
        encoding: 'utf8',
        maxBuffer: 1024 * 1024 * 1024,
      });
      const samples = [];
      for (const line of text.split('\n')) {
        if (!line.startsWith('\t')) {
          if (line.trim()) samples.push({ tid: Number(line.trim().split(/\s+/)[0]), frames: [] });
        } else if (line.trim()) samples.at(-1)?.frames.push(line.trim().split(/\s+/).slice(1).join(' '));
      }
      return samples;
    };
    const shares = (counts, total) =>
      [...counts]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 30)
        .map(([k, n]) => `  ${((100 * n) / total).toFixed(1).padStart(5)}%  ${k}`)
        .join('\n');
    // The daemon: each sample charged to its innermost JavaScript frame (natives, builtins and the
    // kernel to their caller), read back to its source through the bundle's source map.
    const lookup = sourceOf(JSON.parse(readFileSync(join(dirname(entry), 'taplined.cjs.map'), 'utf8')));
    const areaOf = (frame) => {
      const at = /^JS:\S+ (\S+):(\d+):(\d+)/.exec(frame);
      if (!at) return null;
      if (!at[1].endsWith('taplined.cjs')) return at[1].startsWith('node:') ? 'node:*' : at[1];
      const source = lookup(Number(at[2]) - 1, Number(at[3]) - 1) ?? 'daemon (unmapped)';
      const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(source);
      return pkg ? pkg[1] : source.replace(/^(\.\.\/)+/, '');
    };
    const byArea = new Map();
    const daemonSamples = stacks(to.daemon.pids);
    for (const { tid, frames } of daemonSamples) {
      const area = frames.map(areaOf).find(Boolean) ?? '(no JavaScript frame)';
      const key = `${tid === pid ? 'event loop' : 'other threads'}  ${area}`;
      byArea.set(key, (byArea.get(key) ?? 0) + 1);
    }
    process.stdout.write(
      `\nperf, the daemon, each sample to its innermost JavaScript frame's source (${daemonSamples.length} samples):\n${shares(byArea, daemonSamples.length)}\n`,
    );
    // PostgreSQL: each sample to the phase whose function is on its stack.
    const PHASES = [
      ['parsing', 'raw_parser'],
      ['parse analysis', 'parse_analyze_fixedparams'],
      ['parse analysis', 'parse_analyze_varparams'],
      ['planning', 'pg_plan_query'],
      ['commit', 'CommitTransactionCommand'],
      ['execution', 'PortalRun'],
      ['execution', 'PortalStart'],
      ['reading the socket', 'pq_getbyte'],
    ];
    const MARKED = [
      ['  of planning: unnamed statements (GetCachedPlan)', 'GetCachedPlan'],
      ['  of execution: index inserts', 'ExecInsertIndexTuples'],
      ['  of execution: heap inserts', 'heap_insert'],
      ['  of commit: WAL flush', 'XLogFlush'],
      ['  sub-selects (the stream numbers), all phases', 'SS_process_sublinks|parse_sub_analyze|ExecSetParamPlan'],
    ];
    const byPhase = new Map();
    const postgresSamples = stacks(to.PostgreSQL.pids);
    for (const { frames } of postgresSamples) {
      const names = new Set(frames.map((f) => f.split(' ')[0]));
      const phase = PHASES.find(([, fn]) => names.has(fn))?.[0] ?? 'the rest';
      byPhase.set(phase, (byPhase.get(phase) ?? 0) + 1);
      for (const [label, fns] of MARKED)
        if (fns.split('|').some((fn) => names.has(fn))) byPhase.set(label, (byPhase.get(label) ?? 0) + 1);
    }
    process.stdout.write(
      `\nperf, PostgreSQL, by phase (${postgresSamples.length} samples):\n${shares(byPhase, postgresSamples.length)}\n`,
    );
    if (!process.env.PERF_DATA) rmSync(perfData, { force: true });
  }
  if (!process.env.PERF_DATA) rmSync(`/tmp/perf-${pid}.map`, { force: true }); // --perf-basic-prof's symbols
} catch (error) {
  await stopAll();
  throw error;
}
