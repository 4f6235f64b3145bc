// Issue 6: what the webhook outbox adds to compose latency (target: under 10%).
// Two daemons side by side, one with an active `fatal` webhook on its source and one without;
// every composed record is a 503 (FATAL), so each one on the first daemon goes through the
// outbox (a delivery row or a storm-summary count in the ingest transaction). Rounds alternate
// between the two so that drift on a shared machine hits both alike; medians are reported.
// Latency on a loaded machine mostly measures the neighbours, so the daemon's own CPU time per
// composed record (from /proc, Linux only) is reported beside it: that is what the outbox adds.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { api, autocannon, composeBody, createSource, startDaemon, tempHome } from '../lib.mjs';

const ROUNDS = 6;
const SECONDS = 5;
const CONNECTIONS = 10;

/** User plus system CPU of a process in milliseconds, or NaN where /proc is not available. */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in USER_HZ (100)
  } catch {
    return Number.NaN;
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

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
  return { url: `http://127.0.0.1:${server.address().port}/hook`, received: () => received, close: () => new Promise((r) => server.close(r)) };
}

async function prepare(root, withWebhook, receiverUrl) {
  const home = tempHome();
  const daemon = await startDaemon(root, home.path, ['--allow-private-webhooks']);
  const source = await createSource(daemon.url, daemon.token, 'bench');
  if (withWebhook) await api(daemon.url, daemon.token, 'POST', `/webhooks/${source.id}`, { type: 'http', level: 'fatal', value: receiverUrl });
  const body = JSON.stringify(composeBody(source.id, { status: 503 }));
  const args = ['-c', String(CONNECTIONS), '-m', 'POST', '-H', 'content-type=application/json', '-H', `authorization=Bearer ${daemon.token}`, '-b', body];
  const target = `${daemon.url}/http-traffic-record/${source.id}`;
  return {
    async measure(seconds) {
      const before = cpuMs(daemon.child.pid);
      const result = await autocannon(root, [...args, '-d', String(seconds), target]);
      return { ...result, cpuPerRecord: (cpuMs(daemon.child.pid) - before) / result['2xx'] };
    },
    close: async () => {
      await daemon.stop();
      home.remove();
    },
  };
}

export default async function run({ root, log }) {
  const receiver = await startReceiver();
  const without = await prepare(root, false, receiver.url);
  const withHook = await prepare(root, true, receiver.url);
  try {
    await without.measure(2); // warm-up
    await withHook.measure(2);
    const figures = { without: [], with: [] };
    for (let round = 1; round <= ROUNDS; round++) {
      const order = [['without', without], ['with', withHook]];
      // Alternate which goes first, so neither always runs right after the other warmed the machine.
      for (const [name, daemon] of round % 2 ? order : order.reverse()) {
        const r = await daemon.measure(SECONDS);
        if (r.non2xx || r.errors) throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
        figures[name].push({ mean: r.latency.mean, p99: r.latency.p99, rps: r.requests.average, cpu: r.cpuPerRecord });
        log(`round ${round} ${name.padEnd(7)} webhook: mean ${r.latency.mean} ms, p99 ${r.latency.p99} ms, ${r.requests.average} req/s, daemon CPU ${r.cpuPerRecord.toFixed(3)} ms/record`);
      }
    }
    const summary = (name, key) => median(figures[name].map((f) => f[key]));
    const overhead = (key) => `${(((summary('with', key) - summary('without', key)) / summary('without', key)) * 100).toFixed(1)}%`;
    return {
      'daemon CPU ms per record, no webhook': summary('without', 'cpu').toFixed(3),
      'daemon CPU ms per record, active fatal webhook': summary('with', 'cpu').toFixed(3),
      'outbox overhead on CPU per record (target <10%)': overhead('cpu'),
      [`compose mean ms, no webhook (${CONNECTIONS} conns)`]: summary('without', 'mean'),
      'compose mean ms, active fatal webhook': summary('with', 'mean'),
      'outbox overhead on mean latency': overhead('mean'),
      'compose p99 ms, no webhook': summary('without', 'p99'),
      'compose p99 ms, active fatal webhook': summary('with', 'p99'),
      'outbox overhead on p99': overhead('p99'),
      'records/s, no webhook / with webhook': `${Math.round(summary('without', 'rps'))} / ${Math.round(summary('with', 'rps'))}`,
      'messages the receiver got (storm control)': receiver.received(),
    };
  } finally {
    await without.close();
    await withHook.close();
    await receiver.close();
  }
}
