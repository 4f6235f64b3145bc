import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import {
  createRecorder,
  DEFAULT_MAX_BODY,
  FilterSyntaxError,
  pointAtColumn,
  resolveSourceId,
  SourceNotFoundError,
  UnreachableError,
  type Recorder,
  type RecordBody,
} from '@tapline/shared';
import type { CliContext } from '../context.js';
import { notFound, usage } from '../exit-codes.js';
import { example } from '../help.js';
import type { Register } from '../register.js';
import { compileExclude, type Exclusion } from '../proxy/exclude.js';
import { createNotices } from '../proxy/notices.js';
import { toRecord } from '../proxy/record.js';
import { createProxyServer, type ProxyCounters } from '../proxy/server.js';
import { parseListen, parseSize, proxyUrl } from '../proxy/options.js';
import { createThreadSender } from '../proxy/sender.js';
import { parseTarget } from '../proxy/target.js';

export interface ProxyOptions {
  readonly source: string;
  readonly target: string;
  readonly listen: string;
  readonly maxBody: number;
  readonly maxQueue: number;
  readonly exclude: readonly string[];
}

export interface ProxySummary extends Omit<ProxyCounters, 'recorded'> {
  readonly url: string;
  /** Records the daemon stored. */
  readonly stored: number;
  /** Records dropped (queue full) or refused by the daemon, and those still queued when the proxy stopped. */
  readonly dropped: number;
}

/** How long Ctrl-C waits for requests in flight, then for the queue to reach the daemon. */
const CLOSE_GRACE_MS = 2_000;
const FLUSH_TIMEOUT_MS = 5_000;

/**
 * `tapline proxy`: forwards to the target until Ctrl-C, recording each finished exchange through a
 * recorder that never makes a request wait. Resolves with the counts once the queue is flushed.
 */
export async function runProxy(ctx: CliContext, opts: ProxyOptions): Promise<ProxySummary> {
  const target = wrap(() => parseTarget(opts.target));
  const listen = wrap(() => parseListen(opts.listen));
  const exclusion = wrap(() => compileExclude(opts.exclude));
  const sourceId = await startingSource(ctx, opts.source);
  const notices = createNotices(ctx);
  // Batches go to the daemon from a thread of their own, off the loop that forwards (§20.36).
  const sender = createThreadSender(new URL('./proxy-sender.js', import.meta.url), ctx.client, ctx.token);
  const recorder = createRecorder({
    client: ctx.client,
    post: sender.post,
    sourceId,
    maxQueue: opts.maxQueue,
    onDrop: (event) => notices.dropped(event),
    onError: (error) => notices.failed(error),
    onRefused: (refusal) => notices.refused(refusal),
  });
  const server = createProxyServer({
    target,
    maxBody: opts.maxBody,
    isExcluded: exclusion.path,
    onExchange: (exchange) =>
      recordExchange(recorder, exclusion, () => toRecord(exchange, target, opts.maxBody), server.counters),
  });
  const address = await server.listen(listen.host, listen.port).catch((error: NodeJS.ErrnoException) => {
    throw usage(
      `cannot listen on ${opts.listen} (${error.code ?? error.message})`,
      error.code === 'EADDRINUSE'
        ? 'another program uses that port: pick one with --listen 127.0.0.1:<port>'
        : undefined,
    );
  });
  const url = proxyUrl(address);
  if (ctx.mode === 'table') {
    ctx.print(`tapline proxy listening on ${url}`);
    ctx.note(`forwarding to ${target.origin}, recording to source ${opts.source}; Ctrl-C to stop`);
  } else ctx.print(JSON.stringify({ event: 'listening', url, target: target.origin, source: opts.source }));

  await new Promise<void>((resolve) =>
    ctx.io.signal.aborted ? resolve() : ctx.io.signal.addEventListener('abort', () => resolve(), { once: true }),
  );
  await server.close(CLOSE_GRACE_MS);
  // Exchanges finishing during the grace period are still being turned into records.
  await new Promise((resolve) => setImmediate(resolve));
  await recorder.close(FLUSH_TIMEOUT_MS);
  await sender.close();
  notices.stop();
  const stats = recorder.stats();
  const { recorded: _handedOver, ...counters } = server.counters;
  return { url, ...counters, stored: stats.sent, dropped: stats.dropped + stats.rejected + stats.queued };
}

/** Records an exchange unless a filter excludes it; a record that cannot be built is left out, never thrown into the proxy. */
function recordExchange(
  recorder: Recorder,
  exclusion: Exclusion,
  build: () => ReturnType<typeof toRecord>,
  counters: ProxyCounters,
): void {
  const record = (body: RecordBody | null) => {
    if (!body) return;
    if (exclusion.record?.(body)) {
      counters.recorded -= 1;
      counters.excluded += 1;
      return;
    }
    recorder.record(body);
  };
  let built: ReturnType<typeof toRecord>;
  try {
    built = build();
  } catch {
    return;
  }
  if (built instanceof Promise) built.then(record, () => undefined);
  else record(built);
}

/** The source's id, looked up now so a wrong name fails at once; a daemon that is down is looked up again later. */
async function startingSource(ctx: CliContext, source: string): Promise<string | (() => Promise<string>)> {
  try {
    return await resolveSourceId(ctx.client, source);
  } catch (error) {
    // Exit 5 as for every other command (README, exit codes): a wrong name is not a crash.
    if (error instanceof SourceNotFoundError)
      throw notFound(error.message, 'see `tapline sources list`, or add it with `tapline sources add`');
    if (!(error instanceof UnreachableError)) throw error;
    ctx.note(`tapline proxy: ${error.message}; forwarding anyway, records wait in the queue until it answers`);
    return () => resolveSourceId(ctx.client, source);
  }
}

function wrap<T>(make: () => T): T {
  try {
    return make();
  } catch (error) {
    if (error instanceof FilterSyntaxError)
      throw usage(`--exclude is neither a path glob (begins with /) nor a valid filter:\n${pointAtColumn(error)}`);
    throw usage(error instanceof Error ? error.message : String(error));
  }
}

export function printSummary(ctx: CliContext, s: ProxySummary): void {
  if (ctx.mode !== 'table') return ctx.print(JSON.stringify({ event: 'summary', ...s }));
  const byMethod = Object.entries(s.unrecorded)
    .map(([method, n]) => `${method} ${n}`)
    .join(', ');
  const unrecorded = Object.values(s.unrecorded).reduce((a, b) => a + b, 0);
  ctx.note(
    `tapline proxy: forwarded ${s.forwarded}; stored ${s.stored}; dropped ${s.dropped}; excluded ${s.excluded}; not recorded by method ${unrecorded}${byMethod ? ` (${byMethod})` : ''}; target unreachable ${s.targetErrors}; client gone before an answer ${s.abandoned}`,
  );
}

const collect = (value: string, previous: string[]) => [...previous, value];
const size = (text: string) => {
  const n = parseSize(text);
  if (n === null) throw new InvalidArgumentError('must be a size such as 64kb, 1mb or 65536');
  return n;
};
const count = (text: string) => {
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number from 1');
  return n;
};

export const registerProxy: Register = (program, context) => {
  const cmd = program
    .command('proxy')
    .description('a reverse proxy that records every request to a traffic source, with no code in the app')
    .requiredOption('--source <name>', 'traffic source to record to (name or id; an ingest token will do)')
    .requiredOption('--target <url>', 'the app to forward to, such as http://localhost:3000')
    .option('--listen <host:port>', 'where the proxy listens', '127.0.0.1:8080')
    .option('--max-body <size>', 'text kept of each body in a record', size, DEFAULT_MAX_BODY)
    .option('--max-queue <n>', 'records held while the daemon is slow or down, then dropped and counted', count, 10_000)
    .option(
      '--exclude <pattern>',
      'leave out of recording: a path glob (/health, /static/**) or a filter (status<400 and path^=/assets); repeatable',
      collect,
      [],
    )
    .action(async (opts: ProxyOptions, command: Command) => {
      const ctx = context(command);
      printSummary(ctx, await runProxy(ctx, opts));
    });
  example(
    cmd,
    'tapline proxy --source demo --target http://localhost:3000',
    'tapline proxy --source shop --target http://localhost:5173 --listen 0.0.0.0:8080 --exclude /health --exclude "/assets/**"',
  );
};
