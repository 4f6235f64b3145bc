import type { Command } from 'commander';
import { formatLatency, recordUrl } from '@tapline/shared';
import type { CliContext } from '../context.js';
import { example } from '../help.js';
import type { ContextFactory } from '../register.js';
import { buildReplay, type ReplayChanges, type ReplayRequest } from '../replay/request.js';
import { sendReplay, type ReplayResponse } from '../replay/send.js';
import { paintStatus } from '../style.js';
import { pairs, pretty, section, showTraffic } from './traffic-show.js';

export interface ReplayResult {
  readonly request: Pick<ReplayRequest, 'method' | 'url'>;
  readonly response: ReplayResponse;
  /** The exchange replayed, to compare against. */
  readonly recorded: {
    readonly id: string;
    readonly url: string;
    readonly status: number;
    readonly elapsedTime: number;
  };
}

/** `tapline traffic replay`: the recorded request, sent again, and what came back. */
export async function replayTraffic(
  ctx: CliContext,
  source: string,
  id: string,
  changes: ReplayChanges,
): Promise<ReplayResult> {
  const record = (await showTraffic(ctx, source, id)).data;
  const request = buildReplay(record, changes);
  const response = await sendReplay(request, ctx.io.signal);
  return {
    request: { method: request.method, url: request.url },
    response,
    recorded: { id: record.id, url: recordUrl(record), status: record.status, elapsedTime: record.elapsedTime },
  };
}

export function replayLines(ctx: Pick<CliContext, 'colors'>, result: ReplayResult): string[] {
  const c = ctx.colors;
  const { request, response, recorded } = result;
  return [
    `${c.bold(request.method)} ${request.url}`,
    `${paintStatus(c, response.status)} ${response.statusText}  ${formatLatency(response.elapsedTime)}  ${c.dim(`(recorded: ${recorded.status} in ${formatLatency(recorded.elapsedTime)})`)}`,
    ...section('Response headers', pairs(response.headers, c), c),
    ...section('Response body', response.body === null ? [] : pretty(response.body).split('\n'), c),
  ];
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function addTrafficReplay(traffic: Command, context: ContextFactory): void {
  const cmd = traffic
    .command('replay <source> <id>')
    .description(
      'send a recorded request again (to its origin, or --to) and print the answer; redacted values, and a body not kept whole, must be given',
    )
    .option('--to <url>', 'send to this base URL instead of the recorded origin, such as http://localhost:3000')
    .option(
      '--set-header <name:value>',
      'set a header (replaces the recorded one; needed for each redacted header); repeatable',
      collect,
      [],
    )
    .option('--set-query <name=value>', 'set a query parameter (replaces the recorded one); repeatable', collect, [])
    .option(
      '--data <json>',
      'the request body, as JSON (needed when the recorded body has redacted values or is a placeholder: binary, or cut at --max-body)',
    )
    .action(
      async (
        source: string,
        id: string,
        opts: { to?: string; setHeader: string[]; setQuery: string[]; data?: string },
        command: Command,
      ) => {
        const ctx = context(command);
        const result = await replayTraffic(ctx, source, id, { ...opts, setHeaders: opts.setHeader });
        if (ctx.mode !== 'table') return ctx.print(JSON.stringify(result));
        for (const line of replayLines(ctx, result)) ctx.print(line);
      },
    );
  example(
    cmd,
    'tapline traffic replay shop 019a4c2e-7b1d --to http://localhost:3000',
    "tapline traffic replay shop 019a4c2e-7b1d --set-header 'authorization: Bearer dev-token' --json | jq .response.status",
  );
}
