// Issue 6: what the webhook outbox adds to compose latency (target: under 10%).
// Two daemons side by side, one with an active `fatal` webhook on its source and one without;
// every composed record is a 503 (FATAL), so each one on the first daemon goes through the
// outbox (a delivery row or a storm-summary count in the ingest transaction). Rounds alternate
// between the two so that drift on a shared machine hits both alike; medians are reported.
// Latency on a loaded machine mostly measures the neighbours, so the daemon's own CPU time per
// composed record (from /proc, Linux only) is reported beside it: that is what the outbox adds.
import { createServer } from 'node:http';
import { api, autocannon, composeRecord, cpuMs, createSource, startDaemon } from '../lib.mjs';
import { figure, versus } from '../figures.mjs';
import { loadRealisticRecord } from '../ts.mjs';

export const figures = [
  'daemon CPU ms per record, active fatal webhook',
  'daemon CPU ms per record, no webhook',
  'compose mean ms, active fatal webhook',
  'compose p99 ms, active fatal webhook',
  'compose p99 ms, no webhook',
  'webhook messages received',
];

const CONNECTIONS = 10;

async function startReceiver() {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.writeHead(204).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    received: () => received,
    close: () => new Promise((r) => server.close(r)),
  };
}

async function prepare(root, withWebhook, receiverUrl, tmp, realisticRecord, seconds) {
  const home = tmp();
  const daemon = await startDaemon(root, home.path, ['--allow-private-webhooks']);
  const source = await createSource(daemon.url, daemon.token, 'bench');
  if (withWebhook)
    await api(daemon.url, daemon.token, 'POST', `/webhooks/${source.id}`, {
      type: 'http',
      level: 'fatal',
      value: receiverUrl,
    });
  const body = JSON.stringify({ ...composeRecord(realisticRecord, source.id), status: 503 });
  const args = [
    '-c',
    String(CONNECTIONS),
    '-m',
    'POST',
    '-H',
    'content-type=application/json',
    '-H',
    `authorization=Bearer ${daemon.token}`,
    '-b',
    body,
  ];
  const target = `${daemon.url}/http-traffic-record/${source.id}`;
  return {
    async measure(d = seconds) {
      const before = cpuMs(daemon.child.pid);
      const result = await autocannon(root, [...args, '-d', String(d), target]);
      return { ...result, cpuPerRecord: (cpuMs(daemon.child.pid) - before) / result['2xx'] };
    },
    close: async () => {
      await daemon.stop();
      home.remove();
    },
  };
}

export default async function run({ root, log, quick, tmp }) {
  const [ROUNDS, SECONDS] = quick ? [1, 1] : [6, 5];
  const realisticRecord = await loadRealisticRecord(root);
  const receiver = await startReceiver();
  const without = await prepare(root, false, receiver.url, tmp, realisticRecord, SECONDS);
  const withHook = await prepare(root, true, receiver.url, tmp, realisticRecord, SECONDS);
  try {
    if (!quick) await without.measure(2); // warm-up
    if (!quick) await withHook.measure(2);
    const figures = { without: [], with: [] };
    for (let round = 1; round <= ROUNDS; round++) {
      const order = [
        ['without', without],
        ['with', withHook],
      ];
      // Alternate which goes first, so neither always runs right after the other warmed the machine.
      for (const [name, daemon] of round % 2 ? order : order.reverse()) {
        const r = await daemon.measure();
        if (r.non2xx || r.errors) throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
        figures[name].push({ mean: r.latency.mean, p99: r.latency.p99, rps: r.requests.average, cpu: r.cpuPerRecord });
        log(
          `round ${round} ${name.padEnd(7)} webhook: mean ${r.latency.mean} ms, p99 ${r.latency.p99} ms, ${r.requests.average} req/s, daemon CPU ${r.cpuPerRecord.toFixed(3)} ms/record`,
        );
      }
    }
    const of = (name, key) => figures[name].map((f) => f[key]);
    return {
      figures: {
        'daemon CPU ms per record, active fatal webhook': versus('ms', of('with', 'cpu'), {
          'no webhook': of('without', 'cpu'),
        }),
        'daemon CPU ms per record, no webhook': figure('ms', of('without', 'cpu')),
        'compose mean ms, active fatal webhook': versus('ms', of('with', 'mean'), {
          'no webhook': of('without', 'mean'),
        }),
        'compose p99 ms, active fatal webhook': versus('ms', of('with', 'p99'), { 'no webhook': of('without', 'p99') }),
        'compose p99 ms, no webhook': figure('ms', of('without', 'p99')),
        'webhook messages received': figure('messages', [receiver.received()]),
      },
    };
  } finally {
    await without.close();
    await withHook.close();
    await receiver.close();
  }
}
