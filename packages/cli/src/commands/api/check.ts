import { ApiError, type ApiCheckAnswer, type ApiViolation, contract } from '@tapline/shared';
import { request } from '../../api.js';
import { PASS_TIMEOUT_MS } from './pass-timeout.js';
import type { CliContext } from '../../context.js';
import { usage } from '../../exit-codes.js';
import { resolveSource } from '../../resolve.js';
import { renderTable } from '../../table.js';
import { loadSpec } from './spec-file.js';

export interface CheckOptions {
  readonly spec: string;
  readonly since?: string;
  readonly until?: string;
  readonly route?: string[];
  readonly maxExamples?: number;
}

/** `tapline api check`: the spec is read and bundled here, the exchanges are checked where they are stored. */
export async function checkApi(ctx: CliContext, source: string, opts: CheckOptions) {
  const spec = await loadSpec(opts.spec);
  const { id } = await resolveSource(ctx, source);
  const body = {
    spec,
    ...(opts.since ? { since: opts.since } : {}),
    ...(opts.until ? { until: opts.until } : {}),
    ...(opts.route?.length ? { route: opts.route } : {}),
    ...(opts.maxExamples !== undefined ? { maxExamples: opts.maxExamples } : {}),
  };
  try {
    return await request(ctx, contract.checkApiContract, { params: { trafficSourceId: id }, body }, PASS_TIMEOUT_MS);
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) throw usage(error.message);
    throw error;
  }
}

const where = (v: ApiViolation) => `${v.method} ${v.path}${v.status !== undefined ? ` → ${v.status}` : ''}`;

/** The report for a person: per operation, then each violation with the entries to open. */
export function checkLines(ctx: CliContext, report: ApiCheckAnswer, source: string): string[] {
  const lines = renderTable(
    report.operations,
    [
      { header: 'METHOD', value: (o) => o.method },
      { header: 'EXCHANGES', value: (o) => String(o.exchanges), align: 'right' },
      { header: 'CONFORM', value: (o) => String(o.conforming), align: 'right' },
      { header: 'PATH', value: (o) => o.path, flex: true },
    ],
    { ...ctx, width: ctx.width },
  );
  lines.push('');
  for (const v of report.violations) {
    const place = v.pointer ? ` at ${v.pointer}` : '';
    lines.push(
      `${ctx.colors.red('✗')} ${where(v)}: ${v.kind}${place} (${v.rule}): ${v.message} — ${v.count} exchange${v.count === 1 ? '' : 's'}`,
    );
    lines.push(
      ctx.colors.dim(
        `    tapline traffic show ${source} ${v.examples[0] ?? ''}${v.examples.length > 1 ? `   (also ${v.examples.slice(1).join(' ')})` : ''}`,
      ),
    );
  }
  const broken = report.exchanges - report.conforming;
  lines.push(
    broken === 0
      ? ctx.colors.green(`${report.exchanges} exchange${report.exchanges === 1 ? '' : 's'} checked: all conform`)
      : `${report.exchanges} exchanges checked: ${report.conforming} conform, ${broken} do not (${report.violations.length} violation${report.violations.length === 1 ? '' : 's'})`,
  );
  return lines;
}
