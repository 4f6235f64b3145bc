// `node bench/table.mjs [results.json]`: the README's Performance table, from a results file:
// Tapline's median, the floors' medians from the same run, the median of the per-round ratios,
// and issue 17's target with whether the run met it.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const file = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), 'results.json');
const { machine, mode, scenarios } = JSON.parse(readFileSync(file, 'utf8'));
const fig = (scenario, name) => scenarios[scenario]?.figures?.[name];
const n = (value, digits = 0) =>
  value === undefined
    ? 'n/a'
    : value.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const ratio = (f, floor) => (f?.ratio?.[floor] ? `${n(f.ratio[floor].median, 2)}×` : 'n/a');
const met = (ok) => (ok === undefined ? '' : ok ? 'met' : '**not met**');

const rows = [];
const row = (what, tapline, floors, ratios, target, ok) =>
  rows.push(`| ${what} | ${tapline} | ${floors} | ${ratios} | ${target} | ${met(ok)} |`);

const compose = fig('01-compose', 'compose records/s');
const p99 = fig('01-compose', 'compose p99 ms');
row(
  `single compose, 50 connections, ${n(fig('01-compose', 'record bytes as posted')?.median)}-byte record`,
  `${n(compose?.median)} records/s, p99 ${n(p99?.median)} ms`,
  `bare Express 5: ${n(fig('01-compose', 'bare Express 5 requests/s')?.median)}/s; bare node:http: ${n(fig('01-compose', 'bare node:http requests/s')?.median)}/s`,
  `${ratio(compose, 'bare Express 5')} Express, ${ratio(compose, 'bare node:http')} node:http`,
  '≥ 0.8× Express, p99 ≤ 30 ms',
  compose && p99 ? compose.ratio['bare Express 5'].median >= 0.8 && p99.median <= 30 : undefined,
);
const batch = fig('batch', 'batches of 1,000 records/s');
row(
  'batches of 1,000 over HTTP (4 connections)',
  `${n(batch?.median)} records/s`,
  `better-sqlite3 insert: ${n(fig('batch', 'floor: better-sqlite3 insert records/s')?.median)}/s; with parse + redaction: ${n(fig('batch', 'floor: parse + redact + insert records/s')?.median)}/s`,
  `${ratio(batch, 'better-sqlite3 insert')} insert, ${ratio(batch, 'parse + redact + insert')} parse+insert`,
  '≥ 0.8× parse+insert',
  batch ? batch.ratio['parse + redact + insert'].median >= 0.8 : undefined,
);
const proxyMax = fig('proxy', 'proxy max requests/s');
row(
  'recording proxy, max throughput, 20 connections',
  `${n(proxyMax?.median)} req/s`,
  `nginx \`proxy_pass\`: ${n(fig('proxy', 'nginx max requests/s')?.median)}; bare node:http proxy: ${n(fig('proxy', 'node:http proxy max requests/s')?.median)}; mitmproxy (reverse): ${n(fig('proxy', 'mitmproxy max requests/s')?.median)}`,
  `${ratio(proxyMax, 'nginx')} nginx, ${ratio(proxyMax, 'node:http proxy')} node:http, ${ratio(proxyMax, 'mitmproxy')} mitmproxy`,
  '≥ 0.3× nginx',
  proxyMax?.ratio?.nginx ? proxyMax.ratio.nginx.median >= 0.3 : undefined,
);
const signed = (value) => (value === undefined ? 'n/a' : `${value >= 0 ? '+' : '−'}${n(Math.abs(value), 2)}`);
const added = (who) =>
  `${signed(fig('proxy', `${who} added p50 ms`)?.median)} / ${signed(fig('proxy', `${who} added p99 ms`)?.median)} ms`;
const unrecorded = fig('proxy', 'requests answered but not recorded')?.median;
row(
  'recording proxy at 200 req/s, added latency p50 / p99',
  `${added('proxy')}; ${n(unrecorded)} unrecorded`,
  `nginx ${added('nginx')}; node:http ${added('node:http proxy')}; mitmproxy ${added('mitmproxy')}`,
  '',
  'p99 ≤ +2 ms, nothing unrecorded',
  fig('proxy', 'proxy added p99 ms') ? fig('proxy', 'proxy added p99 ms').median <= 2 && unrecorded === 0 : undefined,
);
const list = scenarios['02-list-1m']?.figures ?? {};
const queries = Object.keys(list)
  .filter((k) => k.endsWith(' above SQL ms'))
  .map((k) => k.slice('first page '.length, -' above SQL ms'.length));
const range = (suffix, digits) => {
  const values = queries.map((q) => list[`${suffix[0]}${q}${suffix[1]}`]?.median).filter((v) => v !== undefined);
  return values.length ? `${n(Math.min(...values), digits)}–${n(Math.max(...values), digits)}` : 'n/a';
};
const worstAbove = Math.max(...queries.map((q) => list[`first page ${q} above SQL ms`].median));
row(
  `list, first filtered page, ${n(list.records?.median)} records (${queries.length} filters)`,
  `p50 ${range(['first page ', ' p50 ms'], 2)} ms`,
  `the repository's SQL in better-sqlite3: ${range(['SQL floor ', ' p50 ms'], 2)} ms`,
  `${range(['first page ', ' above SQL ms'], 2)} ms above SQL`,
  '≤ 0.5 ms above SQL at p50',
  queries.length ? worstAbove <= 0.5 : undefined,
);
const cold = fig('cold-start', 'daemon start to first 200 ms');
const coldEmpty = fig('cold-start', 'daemon first start (empty home) to first 200 ms');
// The target holds for both homes (issue 30): the row is met only when both ratios are.
const coldRatios = [cold, coldEmpty].map((f) => f?.ratio?.['bare node:http']?.median);
row(
  'daemon cold start to first 200 (existing home; empty home)',
  `${n(cold?.median)} ms; ${n(coldEmpty?.median)} ms`,
  `bare node:http: ${n(fig('cold-start', 'bare node:http start to first 200 ms')?.median)} ms`,
  `${ratio(cold, 'bare node:http')}; ${ratio(coldEmpty, 'bare node:http')}`,
  '≤ 2× bare node, both homes',
  cold ? coldRatios.every((r) => r !== undefined && r <= 2) : undefined,
);
const rss = fig('rss', 'daemon peak RSS MiB under compose');
const growth = fig('rss', 'daemon RSS growth first to last round MiB')?.median;
row(
  'daemon RSS under sustained compose (peak; growth first to last round)',
  `${n(rss?.median)} MiB; ${signed(growth)} MiB`,
  `bare node:http under the same load: ${n(fig('rss', 'bare node:http peak RSS MiB under the same load')?.median)} MiB`,
  ratio(rss, 'bare node:http'),
  '≤ 150 MiB, flat',
  rss ? rss.median <= 150 : undefined,
);
const tail = (name) => n(fig('tail-latency', name)?.median, 1);
row(
  'compose answered → line printed by `tapline traffic tail`, 200 records/s',
  `p50 ${tail('tail latency p50 ms')} ms, p99 ${tail('tail latency p99 ms')} ms`,
  '',
  '',
  'p99 < 50 ms (issue 4)',
  fig('tail-latency', 'tail latency p99 ms') ? fig('tail-latency', 'tail latency p99 ms').median < 50 : undefined,
);
const outbox = fig('outbox', 'daemon CPU ms per record, active fatal webhook');
row(
  'webhook outbox: daemon CPU per record with an active `fatal` webhook',
  `${n(outbox?.median, 3)} ms`,
  `no webhook: ${n(fig('outbox', 'daemon CPU ms per record, no webhook')?.median, 3)} ms`,
  ratio(outbox, 'no webhook'),
  '< 1.1× (issue 6)',
  outbox ? outbox.ratio['no webhook'].median < 1.1 : undefined,
);
const cli = fig('cli-startup', 'traffic list <name> to first byte ms');
row(
  '`tapline traffic list` start to first byte',
  `${n(cli?.median)} ms`,
  `node printing one byte: ${n(fig('cli-startup', 'node printing one byte ms')?.median)} ms`,
  ratio(cli, 'node printing one byte'),
  '< 300 ms (issue 3)',
  cli ? cli.median < 300 : undefined,
);

// Issue 13: the same scenarios' PostgreSQL steps, run in the same rounds (bench/postgres.mjs).
const PG = '(postgres)';
const pgCompose = fig('01-compose', `compose records/s ${PG}`);
row(
  'PostgreSQL: single compose, 50 connections',
  `${n(pgCompose?.median)} records/s, p99 ${n(fig('01-compose', `compose p99 ms ${PG}`)?.median)} ms`,
  `SQLite, same rounds: ${n(compose?.median)} records/s`,
  '',
  '≥ 2,500 records/s (issue 13)',
  pgCompose ? pgCompose.median >= 2500 : undefined,
);
const pgBatch = fig('batch', `batches of 1,000 records/s ${PG}`);
row(
  'PostgreSQL: batches of 1,000 over HTTP (4 connections)',
  `${n(pgBatch?.median)} records/s`,
  `\`pg\` alone with COPY: ${n(fig('batch', `floor: PostgreSQL COPY records/s ${PG}`)?.median)}/s; SQLite, same rounds: ${n(batch?.median)}/s`,
  `${ratio(pgBatch, 'PostgreSQL COPY')} COPY`,
  '≥ 15,000 records/s (issue 13)',
  pgBatch ? pgBatch.median >= 15000 : undefined,
);
const pgList = scenarios['03-list-1m-postgres']?.figures ?? {};
const pgP99 = Object.entries(pgList)
  .filter(([k]) => k.endsWith(` p99 ms ${PG}`))
  .map(([, f]) => f.median);
const pgP50 = Object.entries(pgList)
  .filter(([k]) => k.endsWith(` p50 ms ${PG}`))
  .map(([, f]) => f.median);
const span = (values, digits) =>
  values.length ? `${n(Math.min(...values), digits)}–${n(Math.max(...values), digits)}` : 'n/a';
row(
  `PostgreSQL: list, first filtered page, ${n(pgList[`records ${PG}`]?.median)} records (${pgP99.length} filters), \`meta.total\` checked against \`count(*)\``,
  `p50 ${span(pgP50, 2)} ms, p99 ${span(pgP99, 2)} ms`,
  '',
  '',
  'p99 ≤ 20 ms, exact totals (issue 13)',
  pgP99.length ? Math.max(...pgP99) <= 20 : undefined,
);
// Issue 14: bytes on disk per realistic record, and compose beside a prune.
const stored = fig('storage', 'on disk per record');
row(
  'storage: bytes on disk per realistic record (file and WAL), through the batch endpoint',
  `${n(stored?.median)} B (${n(fig('storage', 'on disk per record / JSON posted')?.median, 2)}× the ${n(fig('storage', 'JSON posted per record')?.median)} B of JSON posted); indexes ${n(fig('storage', 'indexes per record')?.median)} B`,
  `gzip'd NDJSON: ${n(fig('storage', 'gzip NDJSON floor per record')?.median)} B`,
  '',
  '≤ 0.6× the JSON (issue 14)',
  stored ? fig('storage', 'on disk per record / JSON posted').median <= 0.6 : undefined,
);
const mb = (f) => (f === undefined ? undefined : f.median / 1e6);
// Issue 26: GET /stats for 24 hours against the same question on the raw entries; ingest with and without statistics; their size.
for (const engine of ['', ` ${PG}`]) {
  const stats = fig('stats', `stats 24h by route,method p99 ms${engine}`);
  const floorName = 'the same question in SQL on the raw entries';
  row(
    `\`GET /stats\` 24 h by route and method, ${n(fig('stats', `entries${engine}`)?.median)} entries in 200 routes${engine ? ', PostgreSQL' : ''}, counts checked exact`,
    `p50 ${n(fig('stats', `stats 24h by route,method p50 ms${engine}`)?.median, 1)} ms, p99 ${n(stats?.median, 1)} ms`,
    `raw entries in SQL: ${n(fig('stats', `SQL floor from raw entries ms${engine}`)?.median)} ms`,
    ratio(stats, floorName),
    'p99 ≤ 50 ms (issue 26)',
    stats ? stats.median <= 50 : undefined,
  );
  row(
    `statistics on disk${engine ? ', PostgreSQL' : ''} (minute, hour and day rows)`,
    `${n(mb(fig('stats', `statistics bytes per million entries${engine}`)), 1)} MB per million entries, ${n(fig('stats', `statistics bytes per route-minute${engine}`)?.median)} B per route-minute`,
    `whole database: ${n(mb(fig('stats', `database bytes per million entries${engine}`)), 1)} MB per million entries`,
    '',
    '',
    undefined,
  );
}
for (const [what, name] of [
  ['single composes', 'single compose records/s, statistics on'],
  ['batches of 1,000', 'batches of 1,000 records/s, statistics on'],
]) {
  const on = fig('stats-ingest', name);
  row(
    `ingest with statistics, ${what}`,
    `${n(on?.median)} records/s`,
    `\`--no-stats\`: ${n(fig('stats-ingest', name.replace('statistics on', '--no-stats'))?.median)} records/s`,
    ratio(on, '--no-stats'),
    '≥ 0.9× (issue 26)',
    on ? on.ratio['--no-stats'].median >= 0.9 : undefined,
  );
}
const withPrune = fig('prune-under-load', 'compose p99 ms with a prune running');
const withoutPrune = fig('prune-under-load', 'compose p99 ms without a prune');
row(
  'compose p99 while `taplined prune` removes old traffic',
  `${n(withPrune?.median)} ms with a prune (${n(fig('prune-under-load', 'prune ms')?.median)} ms long), ${n(fig('prune-under-load', 'failed requests')?.median)} failed`,
  `without a prune: ${n(withoutPrune?.median)} ms`,
  withPrune && withoutPrune ? `${n(withPrune.median / withoutPrune.median, 2)}×` : 'n/a',
  '≤ 2× without (issue 14)',
  withPrune && withoutPrune ? withPrune.median <= 2 * withoutPrune.median : undefined,
);

// Issue 28: `api infer` and `api check` over stored entries, against reading their bodies.
const PARSED = 'bodies read + inflated + parsed';
const infer = fig('api-contract', 'infer s');
const check = fig('api-contract', 'check s');
const inferRss = fig('api-contract', 'daemon peak RSS MiB during infer');
row(
  `\`api infer\` and \`api check\` (50-operation spec) over ${n(fig('api-contract', 'entries')?.median)} stored entries in 50 routes, daemon peak RSS`,
  `infer ${n(infer?.median, 1)} s, ${n(inferRss?.median)} MiB; check ${n(check?.median, 1)} s, ${n(fig('api-contract', 'daemon peak RSS MiB during check')?.median)} MiB`,
  `the bodies read, inflated and parsed in better-sqlite3: ${n(fig('api-contract', `floor: ${PARSED} s`)?.median, 1)} s`,
  `${ratio(infer, PARSED)} infer, ${ratio(check, PARSED)} check`,
  'infer ≤ 5 s and ≤ 200 MB, check ≤ 10 s (issue 28)',
  infer && check && inferRss
    ? infer.median <= 5 && inferRss.median <= 200e6 / 2 ** 20 && check.median <= 10
    : undefined,
);

process.stdout.write(
  `Measured ${machine.startedAt.slice(0, 16).replace('T', ' ')} UTC (${mode} mode) on ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}; load average at start ${machine.loadAverageAtStart.join(' / ')}.\n\n`,
);
process.stdout.write(
  '| what | Tapline | floor or peer, same run | ratio (median of per-round ratios) | target | |\n|---|---|---|---|---|---|\n',
);
// Issue 29: the web UI's first view, signed in, to the traffic list's first row painted, in Chromium.
const firstCold = fig('web-first-view', 'first row visible, cold cache ms');
const firstWarm = fig('web-first-view', 'first row visible, warm cache ms');
row(
  `web UI: navigation to the first traffic row painted, signed in, ${n(fig('web-first-view', 'entries stored')?.median)} entries (cold cache; warm)`,
  `${n(firstCold?.median)} ms; ${n(firstWarm?.median)} ms`,
  `the same bytes and headers as a static page: ${n(fig('web-first-view', 'floor: static page of the same size, cold cache ms')?.median)} ms; ${n(fig('web-first-view', 'floor: static page of the same size, warm cache ms')?.median)} ms`,
  `${ratio(firstCold, 'static page of the same size')} cold, ${ratio(firstWarm, 'static page of the same size')} warm`,
  '≤ 1 s on loopback (issue 29)',
  firstCold && firstWarm ? firstCold.median <= 1000 && firstWarm.median <= 1000 : undefined,
);

process.stdout.write(`${rows.join('\n')}\n`);
