import type { IncomingMessage } from 'node:http';
import { inspect } from 'node:util';
import type { CreateCoreLog } from '@tapline/shared';

export interface ErrorContext {
  /** The core log's `source`: the service that failed. */
  readonly service: string;
  readonly layer: string;
  readonly title?: string | undefined;
}

/** The daemon's limits on core log fields (CreateCoreLog); longer text is cut, never refused. */
const LIMITS = { title: 500, description: 10_000, source: 200, layer: 100, stack: 100_000 } as const;
const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

const CAUSE_DEPTH = 5;

/** The stack of an error, followed by those of its causes. */
function stackOf(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < CAUSE_DEPTH; depth++) {
    const text =
      current instanceof Error
        ? (current.stack ?? `${current.name}: ${current.message}`)
        : typeof current === 'string'
          ? current
          : inspect(current);
    parts.push(depth === 0 ? text : `Caused by: ${text}`);
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join('\n');
}

/**
 * A core log for an error thrown while serving `req`: the title names the error and the request
 * (`TypeError in GET /orders/7`) so that a list of logs reads well; description is the message.
 */
export function coreLogOf(error: unknown, req: IncomingMessage | undefined, context: ErrorContext): CreateCoreLog {
  const name = error instanceof Error ? error.name : 'Error';
  const message = error instanceof Error ? error.message : String(error);
  // Express keeps the URL before its routers rewrote `url` in `originalUrl`.
  const url: unknown = (req && 'originalUrl' in req ? req.originalUrl : undefined) ?? req?.url;
  const path = (typeof url === 'string' ? url : '').split('?')[0];
  const title = context.title ?? (req ? `${name} in ${req.method ?? 'GET'} ${path}` : name);
  return {
    title: cut(title.trim() || 'Error', LIMITS.title),
    description: cut(message, LIMITS.description),
    source: cut(context.service, LIMITS.source),
    layer: cut(context.layer, LIMITS.layer),
    stack: cut(stackOf(error), LIMITS.stack),
  };
}
