// Batch ingest against its floors, interleaved by round: better-sqlite3 alone inserting the same
// rows, and parsing + redacting + inserting them (bench/floors/sqlite-batch.mjs, each in its own
// process on a database of the daemon's schema), then Tapline storing batches of 1,000 over HTTP
// (4 connections, so one batch is stored while the next is prepared in the worker thread), single
// composes (50 connections) and batches of 100. Target (issue 17): batches of 1,000 >= 0.8x the
// parse-and-insert floor. Issue 5's figure stays: batches of 1,000 over single composes (>= 5x).
// Last in each round, batches of 1,000 to Tapline on PostgreSQL (bench/postgres.mjs), the same
// 4 connections, beside its floor: `pg` alone storing the same rows with COPY (bench/floors/
// postgres-copy.mjs) into the same database. Target (issue 13): >= 15,000 records/s.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { autocannon, composeRecord, createSource, startDaemon, throughput } from '../lib.mjs';
import { figure, interleave, pluck, versus } from '../figures.mjs';
import { loadRealisticRecord } from '../ts.mjs';
import { PG, startPostgresDaemon } from '../postgres.mjs';

export const figures = [
  'batches of 1,000 records/s',
  'batch of 1,000 request p99 ms',
  'batches of 100 records/s',
  'single compose records/s',
  'batches of 1,000 / single composes',
  'floor: better-sqlite3 insert records/s',
  'floor: parse + redact + insert records/s',
  'batch body bytes per record',
  `batches of 1,000 records/s ${PG}`,
  `batch of 1,000 request p99 ms ${PG}`,
  `floor: PostgreSQL COPY records/s ${PG}`,
];

/** A floor script of bench/floors, in its own process: its records per second. */
function floorProcess(root, script, args) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [join(root, 'bench', 'floors', script), ...args.map(String)], (error, stdout, stderr) =>
      error
        ? reject(new Error(`${script} ${args[0]} failed: ${stderr || error.message}`))
        : resolve(JSON.parse(stdout).perSecond),
    );
  });
}
const floor = (root, mode, dbFile, sourceId, bodyFile, seconds) =>
  floorProcess(root, 'sqlite-batch.mjs', [mode, dbFile, sourceId, bodyFile, seconds]);

/** A database of the daemon's schema with one source, for the floors: the daemon made it, then stopped. */
async function floorDatabase(root, home) {
  const daemon = await startDaemon(root, home);
  try {
    return { dbFile: join(home, 'tapline.db'), sourceId: (await createSource(daemon.url, daemon.token, 'floor')).id };
  } finally {
    await daemon.stop();
  }
}

export default async function run({ root, log, quick, tmp }) {
  const [rounds, seconds] = quick ? [1, 1] : [5, 5];
  const home = tmp();
  const floorHome = tmp();
  const realisticRecord = await loadRealisticRecord(root);
  const floorDb = await floorDatabase(root, floorHome.path);
  const daemon = await startDaemon(root, home.path);
  const pg = await startPostgresDaemon(root, log);
  try {
    const source = await createSource(daemon.url, daemon.token, 'bench');
    const batch = (n, sourceId) =>
      JSON.stringify(Array.from({ length: n }, (_, seed) => realisticRecord(seed, sourceId)));
    const file = (name, text) => (writeFileSync(join(home.path, name), text), join(home.path, name));
    const thousand = file('thousand.json', batch(1000, source.id));
    const floorBody = file('floor.json', batch(1000, floorDb.sourceId));
    const hundred = file('hundred.json', batch(100, source.id));
    const single = JSON.stringify(composeRecord(realisticRecord, source.id));
    const path = `/http-traffic-record/${source.id}`;
    const args = ['-m', 'POST', '-H', 'content-type=application/json', '-H', `authorization=Bearer ${daemon.token}`];
    // A batch of 1,000 is too long for a command line: autocannon reads those bodies from a file.
    // Quick mode sends a fixed number of requests rather than for a time: on a busy machine a
    // batch of 1,000 may take longer than a quick round's second, which would count nothing.
    const post = (what, connections, body, url, perRequest, d = seconds, to = { args, url: daemon.url }) =>
      autocannon(root, [
        ...to.args,
        '-c',
        String(connections),
        ...(quick ? ['-a', String(Math.max(8, 400 / perRequest))] : ['-d', String(d)]),
        ...body,
        `${to.url}${url}`,
      ]).then((r) => throughput(r, what, perRequest));
    const steps = [
      ['insert floor', () => floor(root, 'insert', floorDb.dbFile, floorDb.sourceId, floorBody, seconds)],
      ['parse floor', () => floor(root, 'parse', floorDb.dbFile, floorDb.sourceId, floorBody, seconds)],
      ['batch 1000', (_, d) => post('batch of 1,000', 4, ['-i', thousand], `${path}/batch`, 1000, d)],
      ['single', (_, d) => post('single compose', 50, ['-b', single], path, 1, d)],
      ['batch 100', (_, d) => post('batch of 100', 4, ['-i', hundred], `${path}/batch`, 100, d)],
    ];
    if (pg.daemon) {
      const pgSource = await createSource(pg.daemon.url, pg.daemon.token, 'bench');
      const pgThousand = file('pg-thousand.json', batch(1000, pgSource.id));
      const to = { args: [...args.slice(0, 4), '-H', `authorization=Bearer ${pg.daemon.token}`], url: pg.daemon.url };
      const copySource = await createSource(pg.daemon.url, pg.daemon.token, 'floor');
      const copyBody = file('pg-floor.json', batch(1000, copySource.id));
      steps.push([
        'postgres copy',
        () => floorProcess(root, 'postgres-copy.mjs', [pg.url, copySource.id, copyBody, seconds]),
      ]);
      steps.push([
        'postgres 1000',
        (_, d) =>
          post(
            'batch of 1,000 on PostgreSQL',
            4,
            ['-i', pgThousand],
            `/http-traffic-record/${pgSource.id}/batch`,
            1000,
            d,
            to,
          ),
      ]);
    }
    if (!quick) for (const [name, step] of steps.slice(2)) if (name !== 'postgres copy') await step(0, 2); // warm-up
    const values = await interleave(rounds, steps, log);
    const perSecond = (name) => pluck(values[name], 'perSecond');
    const floors = {
      'better-sqlite3 insert': values['insert floor'],
      'parse + redact + insert': values['parse floor'],
    };
    return {
      ...(pg.daemon ? {} : { skipped: { [PG]: pg.unavailable } }),
      figures: {
        ...(pg.daemon && {
          [`batches of 1,000 records/s ${PG}`]: versus('records/s', perSecond('postgres 1000'), {
            'PostgreSQL COPY': values['postgres copy'],
          }),
          [`floor: PostgreSQL COPY records/s ${PG}`]: figure('records/s', values['postgres copy']),
          [`batch of 1,000 request p99 ms ${PG}`]: figure('ms', pluck(values['postgres 1000'], 'p99')),
        }),
        'batches of 1,000 records/s': versus('records/s', perSecond('batch 1000'), floors),
        'batch of 1,000 request p99 ms': figure('ms', pluck(values['batch 1000'], 'p99')),
        'batches of 100 records/s': versus('records/s', perSecond('batch 100'), floors),
        'single compose records/s': figure('records/s', perSecond('single')),
        'batches of 1,000 / single composes': figure(
          'x',
          perSecond('batch 1000').map((b, i) => b / perSecond('single')[i]),
        ),
        'floor: better-sqlite3 insert records/s': figure('records/s', values['insert floor']),
        'floor: parse + redact + insert records/s': figure('records/s', values['parse floor']),
        'batch body bytes per record': figure('bytes', [Buffer.byteLength(batch(1000, source.id)) / 1000]),
      },
    };
  } finally {
    await daemon.stop();
    await pg.stop?.();
    home.remove();
    floorHome.remove();
  }
}
