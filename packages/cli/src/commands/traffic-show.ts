import type { Command } from 'commander';
import { contract, formatLatency, formatLocalTime, recordUrl, toCurl, type HttpTrafficRecord } from '@tapline/shared';
import { request, type Answer } from '../api.js';
import type { CliContext } from '../context.js';
import { example } from '../help.js';
import type { ContextFactory } from '../register.js';
import { resolveEntryId, resolveSource } from '../resolve.js';
import { curlWarnings } from '../replay/redacted.js';
import { paintLevel, paintStatus } from '../style.js';

/** `tapline traffic show`: one whole record, bodies and headers included. */
export async function showTraffic(
  ctx: CliContext,
  source: string,
  idOrPrefix: string,
): Promise<Answer<HttpTrafficRecord>> {
  const { id: trafficSourceId } = await resolveSource(ctx, source);
  const id = await resolveEntryId(ctx, trafficSourceId, idOrPrefix);
  return request(ctx, contract.getTraffic, { params: { trafficSourceId, id } });
}

type Values = Readonly<Record<string, string | readonly string[]>>;

export const pretty = (body: unknown) => (typeof body === 'string' ? body : JSON.stringify(body, null, 2));

export function section(title: string, lines: readonly string[], c: CliContext['colors']): string[] {
  return ['', c.bold(title), ...(lines.length ? lines.map((l) => `  ${l}`) : [c.dim('  (none)')])];
}

export const pairs = (values: Values, c: CliContext['colors']) =>
  Object.entries(values).flatMap(([name, v]) =>
    (typeof v === 'string' ? [v] : v).map((value) => `${c.cyan(name)}: ${value}`),
  );

export function recordLines(ctx: CliContext, r: HttpTrafficRecord): string[] {
  const c = ctx.colors;
  return [
    `${c.bold(r.method)} ${recordUrl(r)}`,
    `${paintStatus(c, r.status)}  ${paintLevel(c, r.level)}  ${formatLatency(r.elapsedTime)}  ${formatLocalTime(r.createdAt)}`,
    c.dim(`id ${r.id}${r.trafficUserId ? `  traffic user ${r.trafficUserId}` : ''}`),
    ...section('Request headers', pairs(r.request.headers, c), c),
    ...(Object.keys(r.request.queryParams).length ? section('Query', pairs(r.request.queryParams, c), c) : []),
    ...section('Request body', r.request.body === null ? [] : pretty(r.request.body).split('\n'), c),
    ...section('Response headers', pairs(r.response.headers, c), c),
    ...section('Response body', r.response.body === null ? [] : pretty(r.response.body).split('\n'), c),
  ];
}

export function addTrafficShow(traffic: Command, context: ContextFactory): void {
  const show = traffic
    .command('show <source> <id>')
    .description(
      'one whole traffic record, bodies pretty-printed; <id> may be any unique prefix of 8 or more characters',
    )
    .option('--curl', 'print a curl command that replays the request instead')
    .action(async (source: string, id: string, opts: { curl?: boolean }, cmd: Command) => {
      const ctx = context(cmd);
      const answer = await showTraffic(ctx, source, id);
      if (opts.curl) {
        // toCurl leaves out redacted headers; query and body values, and placeholder bodies, would go out as stored.
        for (const warning of curlWarnings(answer.data.request))
          ctx.note(ctx.colors.yellow(`tapline: warning: ${warning}`));
        return ctx.print(toCurl(answer.data));
      }
      if (ctx.mode !== 'table') return ctx.print(answer.text.trimEnd());
      for (const line of recordLines(ctx, answer.data)) ctx.print(line);
    });
  example(
    show,
    'tapline traffic show shop 019a4c2e-7b1d-7c3e-9f00-3a1b2c3d4e5f',
    'tapline traffic show shop 019a4c2e-7b1d-7c3e-9f00-3a1b2c3d4e5f --curl | bash',
  );
}
