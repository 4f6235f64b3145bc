// Single compose at 50 connections with a realistic 1.6 KB record, against its floors in the same
// run: bare node:http and bare Express 5 reading the same body and answering a record of the same
// size (bench/floors/echo.mjs). Each round runs node:http, Express, then Tapline, 50 connections
// each, from autocannon in its own process. Targets (issue 17): >= 0.8x Express, p99 <= 30 ms.
import { join } from 'node:path';
import { autocannon, composeRecord, createSource, spawnNode, startDaemon, throughput } from '../lib.mjs';
import { figure, interleave, pluck, versus } from '../figures.mjs';
import { loadRealisticRecord } from '../ts.mjs';

export const figures = [
  'compose records/s', 'compose p99 ms', 'compose p50 ms', 'bare Express 5 requests/s', 'bare Express 5 p99 ms', 'bare node:http requests/s', 'record bytes as posted',
];

export default async function run({ root, log, quick, tmp }) {
  const [rounds, seconds] = quick ? [1, 1] : [5, 10];
  const home = tmp();
  const daemon = await startDaemon(root, home.path);
  const floors = ['http', 'express'].map((kind) => spawnNode([join(root, 'bench', 'floors', 'echo.mjs'), kind], /listening on (\S+)/));
  try {
    const [httpUrl, expressUrl] = await Promise.all(floors.map((f) => f.ready));
    const source = await createSource(daemon.url, daemon.token, 'bench');
    const body = JSON.stringify(composeRecord(await loadRealisticRecord(root), source.id));
    const path = `/http-traffic-record/${source.id}`;
    const load = (url, what, d = seconds) =>
      // Quick mode: a fixed number of requests, so a busy machine still completes some (see batch.mjs).
      autocannon(root, ['-c', '50', ...(quick ? ['-a', '200'] : ['-d', String(d)]), '-m', 'POST', '-H', 'content-type=application/json', '-H', `authorization=Bearer ${daemon.token}`, '-b', body, `${url}${path}`]).then(
        (result) => throughput(result, what),
      );
    if (!quick) for (const [url, what] of [[httpUrl, 'node:http'], [expressUrl, 'Express'], [daemon.url, 'tapline']]) await load(url, what, 3); // warm-up
    log(`${rounds} rounds of ${seconds} s each: node:http, Express, Tapline; ${Buffer.byteLength(body)}-byte record`);
    const values = await interleave(rounds, [['node:http', () => load(httpUrl, 'node:http')], ['express', () => load(expressUrl, 'Express')], ['tapline', () => load(daemon.url, 'tapline')]], log);
    const perSecond = (name) => pluck(values[name], 'perSecond');
    return {
      figures: {
        'compose records/s': versus('records/s', perSecond('tapline'), { 'bare Express 5': perSecond('express'), 'bare node:http': perSecond('node:http') }),
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
    home.remove();
  }
}
