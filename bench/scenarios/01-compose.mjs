// Single compose at 50 connections with a realistic 1.6 KB record, against its floors in the same
// run: bare node:http and bare Express 5 reading the same body and answering a record of the same
// size (bench/floors/echo.mjs). Each round runs node:http, Express, then Tapline, 50 connections
// each, from autocannon in its own process. Targets (issue 17): >= 0.8x Express, p99 <= 30 ms.
// Tapline on PostgreSQL (bench/postgres.mjs) runs last in each round. Target (issue 13): >= 2,500
// records/s.
import { join } from 'node:path';
import { autocannon, composeRecord, createSource, spawnNode, startDaemon, throughput } from '../lib.mjs';
import { figure, interleave, pluck, versus } from '../figures.mjs';
import { loadRealisticRecord } from '../ts.mjs';
import { PG, startPostgresDaemon } from '../postgres.mjs';

export const figures = [
  'compose records/s',
  'compose p99 ms',
  'compose p50 ms',
  'bare Express 5 requests/s',
  'bare Express 5 p99 ms',
  'bare node:http requests/s',
  'record bytes as posted',
  `compose records/s ${PG}`,
  `compose p99 ms ${PG}`,
  `compose p50 ms ${PG}`,
];

export default async function run({ root, log, quick, tmp }) {
  const [rounds, seconds] = quick ? [1, 1] : [5, 10];
  const home = tmp();
  const daemon = await startDaemon(root, home.path);
  const pg = await startPostgresDaemon(root, log);
  const floors = ['http', 'express'].map((kind) =>
    spawnNode([join(root, 'bench', 'floors', 'echo.mjs'), kind], /listening on (\S+)/),
  );
  try {
    const [httpUrl, expressUrl] = await Promise.all(floors.map((f) => f.ready));
    const realisticRecord = await loadRealisticRecord(root);
    const target = async (d) => ({
      url: d.url,
      token: d.token,
      sourceId: (await createSource(d.url, d.token, 'bench')).id,
    });
    const tapline = await target(daemon);
    const onPg = pg.daemon ? await target(pg.daemon) : null;
    // Every target gets the same record, only its source id differs.
    const bodyFor = (t) => JSON.stringify(composeRecord(realisticRecord, t.sourceId));
    const body = bodyFor(tapline);
    const load = (t, what, d = seconds) =>
      // Quick mode: a fixed number of requests, so a busy machine still completes some (see batch.mjs).
      autocannon(root, [
        '-c',
        '50',
        ...(quick ? ['-a', '200'] : ['-d', String(d)]),
        '-m',
        'POST',
        '-H',
        'content-type=application/json',
        '-H',
        `authorization=Bearer ${t.token}`,
        '-b',
        bodyFor(t),
        `${t.url}/http-traffic-record/${t.sourceId}`,
      ]).then((result) => throughput(result, what));
    const [httpT, expressT] = [httpUrl, expressUrl].map((url) => ({ ...tapline, url }));
    const steps = [
      ['node:http', (_, d) => load(httpT, 'node:http', d)],
      ['express', (_, d) => load(expressT, 'Express', d)],
      ['tapline', (_, d) => load(tapline, 'tapline', d)],
    ];
    if (onPg) steps.push(['postgres', (_, d) => load(onPg, 'tapline on PostgreSQL', d)]);
    if (!quick) for (const [, step] of steps) await step(0, 3); // warm-up
    log(
      `${rounds} rounds of ${seconds} s each: ${steps.map(([name]) => name).join(', ')}; ${Buffer.byteLength(body)}-byte record`,
    );
    const values = await interleave(rounds, steps, log);
    const perSecond = (name) => pluck(values[name], 'perSecond');
    return {
      ...(onPg ? {} : { skipped: { [PG]: pg.unavailable } }),
      figures: {
        ...(onPg && {
          [`compose records/s ${PG}`]: figure('records/s', perSecond('postgres')),
          [`compose p99 ms ${PG}`]: figure('ms', pluck(values.postgres, 'p99')),
          [`compose p50 ms ${PG}`]: figure('ms', pluck(values.postgres, 'p50')),
        }),
        'compose records/s': versus('records/s', perSecond('tapline'), {
          'bare Express 5': perSecond('express'),
          'bare node:http': perSecond('node:http'),
        }),
        'compose p99 ms': figure('ms', pluck(values.tapline, 'p99')),
        'compose p50 ms': figure('ms', pluck(values.tapline, 'p50')),
        'bare Express 5 requests/s': figure('requests/s', perSecond('express')),
        'bare Express 5 p99 ms': figure('ms', pluck(values.express, 'p99')),
        'bare node:http requests/s': figure('requests/s', perSecond('node:http')),
        'record bytes as posted': figure('bytes', [Buffer.byteLength(body)]),
      },
    };
  } finally {
    await Promise.all(floors.map((f) => f.stop()));
    await daemon.stop();
    await pg.stop?.();
    home.remove();
  }
}
