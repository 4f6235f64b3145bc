import { DEFAULT_HOST, DEFAULT_PORT } from '@tapline/shared/lean';
import { type Command, Option } from 'commander';
import pkg from '../../package.json' with { type: 'json' };
import { DEFAULT_ALERT_INTERVAL_MS, DEFAULT_LIMITS, DEFAULT_TIMEOUTS, defaultConfig } from '../config.js';
import { defaultPoolSize } from '../db/pool-size.js';
import {
  parseAlertInterval,
  parseBytes,
  parseLimits,
  parsePort,
  parseTimeouts,
  parseTrustProxyFlag,
  type ServerFlags,
} from '../flags.js';
import { createLogger } from '../logger.js';
import { DEFAULT_RETENTION } from '../retention/options.js';
import { parseRetention } from '../retention/parse-flags.js';
import { DEFAULT_STATS_RETENTION } from '../route-stats/options.js';
import { parseStats } from '../route-stats/parse-flags.js';
import { endStart, limitHeap } from '../heap-limits.js';
import { serve } from '../serve.js';
import { parseReplayOrigins } from '../web-ui/replay-origins.js';
import { type DatabaseFlags, locations } from './database.js';

interface GlobalOptions extends ServerFlags, DatabaseFlags {
  host?: string;
  port?: string;
  redactKeys?: string;
  redact: boolean;
  allowPrivateWebhooks: boolean;
  webhookDelivery: boolean;
  logLevel: string;
  retention: string;
  maxDbSize: string;
  pruneEvery: string;
  trustProxy?: string;
  stats: boolean;
  statsRetention: string;
  alertInterval: string;
  ui: boolean;
  uiHost?: string;
  uiReplayOrigin: string[];
  leanHeap: boolean;
}

const env = process.env;

async function startDaemon(opts: GlobalOptions): Promise<void> {
  // Only a served daemon: the in-process tests share one V8 with their runner (decisions §20.13).
  // On unless `--no-lean-heap`. It follows on from the start's growth factor (start-flags.ts).
  if (opts.leanHeap) limitHeap();
  const { home, database, dbPool } = locations(opts);
  const timeouts = parseTimeouts(opts);
  const logger = createLogger(opts.logLevel);
  const config = {
    ...defaultConfig(pkg.version),
    maxBody: parseBytes('--max-body', opts.maxBody),
    limits: parseLimits(opts),
    redact: { enabled: opts.redact, extraKeys: (opts.redactKeys ?? '').split(',').filter(Boolean) },
    allowPrivateWebhooks: opts.allowPrivateWebhooks,
    webhookDelivery: opts.webhookDelivery,
    retention: parseRetention(opts),
    trustProxy: parseTrustProxyFlag(opts.trustProxy ?? (env.TAPLINE_TRUST_PROXY || undefined)),
    stats: parseStats(opts),
    alerts: { intervalMs: parseAlertInterval(opts.alertInterval) },
    ui: {
      enabled: opts.ui,
      hosts: (opts.uiHost ?? '')
        .split(',')
        .map((h) => h.trim())
        .filter(Boolean),
      replayOrigins: parseReplayOrigins(opts.uiReplayOrigin),
    },
  };
  let stopSignal: Promise<string> | undefined;
  const daemon = await serve({
    host: opts.host || env.TAPLINE_HOST || DEFAULT_HOST,
    port: parsePort(opts.port || env.TAPLINE_PORT || String(DEFAULT_PORT)),
    home,
    database,
    ...(dbPool === undefined ? {} : { dbPool }),
    config,
    logger,
    timeouts,
    announce: (line) => {
      // Listening before the line is out: a signal sent the moment it is read must stop the
      // daemon gracefully, not kill it (Node's default) before a handler exists.
      stopSignal = nextSignal();
      process.stdout.write(`${line}\n`);
    },
  });
  // Without the lean heap, V8's own sizing once the daemon listens.
  if (!opts.leanHeap) endStart();
  const signal = await (stopSignal ?? nextSignal());
  logger.info({ signal }, 'stopping');
  await daemon.stop().catch((error: unknown) => {
    logger.error({ err: error }, 'error while stopping');
    process.exitCode = 1;
  });
}

const nextSignal = () =>
  new Promise<string>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });

/**
 * `taplined [options]`: the daemon itself, the program's own action. Its flags are the program's,
 * so the other commands read `--home`, `--db` and `--db-pool` from them too (commands/database.ts).
 */
export function registerServe(cmd: Command): void {
  cmd
    .option('--host <host>', `address to listen on (env TAPLINE_HOST, default ${DEFAULT_HOST})`)
    .option('--port <port>', `port to listen on, 0 for any free port (env TAPLINE_PORT, default ${DEFAULT_PORT})`)
    .option('--home <dir>', 'data folder (env TAPLINE_HOME, default $XDG_DATA_HOME/tapline or ~/.local/share/tapline)')
    .option(
      '--db <file|url>',
      'SQLite database file, or a postgres://user:password@host:5432/database URL (env TAPLINE_DB, default <home>/tapline.db)',
    )
    .option(
      '--db-pool <n>',
      `most connections to PostgreSQL at once (default ${defaultPoolSize()}: two per CPU core, 4 to 20)`,
    )
    .option('--max-body <size>', 'largest JSON request body', '1mb')
    .option('--redact-keys <names>', 'more header, query and body key names to redact, comma-separated')
    .option('--no-redact', 'store secrets as sent (turns redaction off)')
    .option('--allow-private-webhooks', 'allow webhooks to loopback and private addresses', false)
    .option(
      '--no-webhook-delivery',
      'queue webhook notifications but do not send them (another daemon on this database sends them)',
    )
    .option(
      '--headers-timeout <duration>',
      'time a client has to send the request headers',
      `${DEFAULT_TIMEOUTS.headers / 1000}s`,
    )
    .option(
      '--request-timeout <duration>',
      'time a client has to send a whole request, body included',
      `${DEFAULT_TIMEOUTS.request / 1000}s`,
    )
    .option(
      '--keep-alive-timeout <duration>',
      'how long an idle keep-alive connection stays open',
      `${DEFAULT_TIMEOUTS.keepAlive / 1000}s`,
    )
    .option(
      '--max-streams-per-token <n>',
      'open event streams one token may hold',
      String(DEFAULT_LIMITS.streamsPerToken),
    )
    .option('--max-streams <n>', 'open event streams in all', String(DEFAULT_LIMITS.streams))
    .option(
      '--stream-buffer <size>',
      'bytes a stream may have waiting for a client that does not read',
      `${DEFAULT_LIMITS.streamBuffer / 1024}kb`,
    )
    .option(
      '--max-large-batches <n>',
      'batches over 1 MiB read at once (on PostgreSQL, twice as many stored beside them)',
      String(DEFAULT_LIMITS.largeBatches),
    )
    .option(
      '--large-batch-wait <duration>',
      'how long a large batch waits for its turn before a 503',
      `${DEFAULT_LIMITS.largeBatchWaitMs / 1000}s`,
    )
    .option(
      '--retention <duration>',
      'delete traffic older than this, such as 30d or 12h, or "off"',
      DEFAULT_RETENTION.retention,
    )
    .option(
      '--max-db-size <size>',
      'past this size on disk (write-ahead log included) the oldest traffic is deleted, such as 2GB or 500MB, or "off"',
      DEFAULT_RETENTION.maxDbSize,
    )
    .option('--prune-every <duration>', 'how often old traffic is looked for', DEFAULT_RETENTION.pruneEvery)
    .option('--lean-heap', "keep V8's heap near its live data (the default; docs/api.md)", true)
    .option(
      '--no-lean-heap',
      'let V8 size its heap as it would: about 50 MiB more under sustained single composes, a few % less CPU for batches',
    )
    .option(
      '--trust-proxy <proxies>',
      'take the client address from X-Forwarded-For set by these proxies: addresses or subnets such as loopback or 10.0.0.0/8, comma-separated, or a number of proxy hops (env TAPLINE_TRUST_PROXY, default off)',
    )
    .option('--no-stats', 'keep no per-route statistics (docs/statistics.md)')
    .option(
      '--stats-retention <duration>',
      'delete per-route statistics older than this, such as 400d, or "off"; separate from --retention',
      DEFAULT_STATS_RETENTION,
    )
    .option(
      '--alert-interval <duration>',
      'how often alert rules are evaluated, from 1s to 1h (docs/alerts.md)',
      `${DEFAULT_ALERT_INTERVAL_MS / 1000}s`,
    )
    .option('--no-ui', 'do not serve the web UI at / (docs/web.md)')
    .option(
      '--ui-host <names>',
      'host names the web UI answers to besides IP addresses, localhost and --host, comma-separated (DNS rebinding)',
    )
    .option(
      '--ui-replay-origin <origins>',
      "origins besides localhost and 127.0.0.1 the web UI's replay may send to, such as http://dev.internal:3000; comma-separated, repeatable",
      (value: string, previous: string[]) => [...previous, value],
      [],
    )
    .addOption(
      new Option('--log-level <level>', 'log level')
        .choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
        .default('info'),
    )
    .addHelpText(
      'after',
      '\nExample:\n  $ taplined --port 0 --home /tmp/tapline\n  taplined listening on http://127.0.0.1:40123',
    )
    .action(async (_args, command: Command) => startDaemon(command.opts<GlobalOptions>()));
}
