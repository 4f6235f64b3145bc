// Open-loop load for added latency: `node open-loop.mjs <rate> <warm-up s> <rounds> <round s>
// <name>=<url>...`. Requests leave on a fixed schedule whether or not earlier ones have answered;
// each tick sends one request to every target, in rotating order, so all of them see the same
// machine at the same moment. Prints `{ rounds: [{ <name>: [ms...] }], failed: { <name>: n } }`.
// autocannon is not used here: it reports whole milliseconds, too coarse for a 2 ms target.
// With OPEN_LOOP_TICKS=1 each round also has `ticks`: per tick, every target's ms in the order of
// the targets (NaN for a failure), so a proxy's time can be set against the direct request sent
// at the same moment (bench/ab-proxy-latency.mjs), which a load on the machine delays alike.
import http from 'node:http';

const [rate, warmUp, roundCount, roundSeconds, ...pairs] = process.argv.slice(2);
const targets = pairs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]);
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const headers = {
  accept: 'application/json',
  'user-agent': 'tapline-bench/1.0',
  authorization: 'Bearer bench-token-not-a-secret',
};

const once = (url) =>
  new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const req = http.get(`${url}/api/v1/orders?status=open&page=2`, { agent, headers }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve(res.statusCode === 200 ? Number(process.hrtime.bigint() - started) / 1e6 : Number.NaN),
      );
    });
    req.on('error', () => resolve(Number.NaN));
  });

const failed = Object.fromEntries(targets.map(([name]) => [name, 0]));
async function phase(seconds, samples, ticks) {
  const pending = [];
  const start = performance.now();
  for (let i = 0; i < seconds * Number(rate); i++) {
    const wait = start + (i * 1000) / Number(rate) - performance.now();
    // Timer-paced, not spun: a spinning loader would steal a core from what it measures.
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const tick = ticks ? targets.map(() => Number.NaN) : null;
    if (tick) ticks.push(tick);
    for (let k = 0; k < targets.length; k++) {
      const [name, url] = targets[(i + k) % targets.length];
      pending.push(
        once(url).then((ms) => {
          if (!samples) return;
          if (Number.isNaN(ms)) failed[name] += 1;
          else samples[name].push(ms);
          if (tick) tick[(i + k) % targets.length] = ms;
        }),
      );
    }
  }
  await Promise.all(pending);
}

await phase(Number(warmUp), null);
const rounds = [];
for (let r = 0; r < Number(roundCount); r++) {
  const samples = Object.fromEntries(targets.map(([name]) => [name, []]));
  const ticks = process.env.OPEN_LOOP_TICKS ? [] : null;
  await phase(Number(roundSeconds), samples, ticks);
  rounds.push(ticks ? { ...samples, ticks } : samples);
}
agent.destroy();
process.stdout.write(
  `${JSON.stringify({ rounds, failed, sent: (Number(warmUp) + Number(roundCount) * Number(roundSeconds)) * Number(rate) })}\n`,
);
