import {
  compilePredicate,
  domainOf,
  levelOf,
  Method,
  parseFilter,
  Protocol,
  type HttpTraffic,
  type HttpTrafficRecord,
  type RecordBody,
} from '@tapline/shared';

/**
 * `--exclude` path globs, matched against the request path without its query:
 * `*` matches within one segment, `**` across segments, `?` one character; `/static/**` also
 * matches `/static` itself. A pattern must begin with `/`.
 */
export function compileGlobs(patterns: readonly string[]): (pathname: string) => boolean {
  if (patterns.length === 0) return () => false;
  const regex = new RegExp(`^(?:${patterns.map(globSource).join('|')})$`);
  return (pathname) => regex.test(pathname);
}

function globSource(glob: string): string {
  if (!glob.startsWith('/')) throw new Error(`--exclude glob must begin with / (got "${glob}")`);
  let out = '';
  for (let i = 0; i < glob.length; i += 1) {
    const c = glob.charAt(i);
    if (c === '*' && glob[i + 1] === '*') {
      // `/x/**` also matches `/x`: swallow the slash before a trailing `**` into the optional part.
      if (out.endsWith('/') && i + 2 === glob.length) out = `${out.slice(0, -1)}(?:/.*)?`;
      else out += '.*';
      i += 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return out;
}

/** `--exclude` compiled: path globs decide before forwarding, filter expressions once the record is built. */
export interface Exclusion {
  /** Excluded by a path glob: the exchange is not even tapped. */
  readonly path: (pathname: string) => boolean;
  /** Excluded by a filter expression; null when none was given. */
  readonly record: ((body: RecordBody) => boolean) | null;
}

/**
 * A pattern that begins with `/` is a path glob; anything else is a filter-language expression
 * (docs/filter-language.md), such as `status<400 and path^=/assets`. Throws FilterSyntaxError or
 * Error for a pattern that is neither.
 */
export function compileExclude(patterns: readonly string[]): Exclusion {
  const globs = patterns.filter((p) => p.startsWith('/'));
  const filters = patterns.filter((p) => !p.startsWith('/')).map((p) => compilePredicate(parseFilter(p)));
  return {
    path: compileGlobs(globs),
    record:
      filters.length === 0
        ? null
        : (body) => {
            const stored = asStored(body);
            return stored !== null && filters.some((matches) => matches(stored.entry, stored.record));
          },
  };
}

const PLACEHOLDER_ID = '00000000-0000-7000-8000-000000000000';

/**
 * A record body seen as the daemon will store it, so a filter means the same here as in `tapline
 * traffic`; null for a method or protocol the daemon does not store (nothing to exclude then).
 */
function asStored(body: RecordBody): { entry: HttpTraffic; record: HttpTrafficRecord } | null {
  const method = Method.safeParse(body.method);
  const protocol = Protocol.safeParse(body.protocol);
  if (!method.success || !protocol.success) return null;
  const common = {
    id: PLACEHOLDER_ID,
    status: body.status,
    method: method.data,
    level: levelOf(body.status),
    elapsedTime: body.elapsedTime,
    createdAt: body.startedAt ?? new Date().toISOString(),
    domain: domainOf(body.domainUrl),
    pathname: body.pathnameUrl,
    protocol: protocol.data,
    trafficSourceId: PLACEHOLDER_ID,
  } as const;
  const entry: HttpTraffic = {
    ...common,
    domainId: PLACEHOLDER_ID,
    pathnameId: PLACEHOLDER_ID,
    requestId: PLACEHOLDER_ID,
    responseId: PLACEHOLDER_ID,
  };
  const record: HttpTrafficRecord = {
    ...common,
    request: {
      headers: strings(body.requestHeaders),
      body: body.requestBody ?? null,
      queryParams: strings(body.queryParams),
    },
    response: { headers: strings(body.responseHeaders), body: body.responseBody ?? null },
  };
  return { entry, record };
}

const strings = (map: Record<string, unknown>): Record<string, string | string[]> =>
  Object.fromEntries(Object.entries(map).map(([k, v]) => [k, Array.isArray(v) ? v.map(String) : String(v)]));
