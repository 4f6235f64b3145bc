import type { HttpTrafficRecord } from '@tapline/shared';

export type Side = 'request' | 'response';

/** A JSON body pretty-printed; a text body that holds JSON is pretty-printed too. */
export function prettyBody(body: unknown): string {
  if (body === null || body === undefined) return '(no body)';
  if (typeof body === 'string') {
    try {
      return JSON.stringify(JSON.parse(body), null, 2);
    } catch {
      return body;
    }
  }
  return JSON.stringify(body, null, 2);
}

/** Hard-wraps one line into pieces of at most `width` characters (tabs as two spaces). */
export function wrapLine(line: string, width: number): string[] {
  const text = line.replace(/\t/g, '  ');
  if (width <= 0 || text.length <= width) return [text];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += width) out.push(text.slice(i, i + width));
  return out;
}

const headerLines = (headers: Record<string, string | string[]>) => {
  const names = Object.keys(headers).sort();
  if (names.length === 0) return ['  (none)'];
  return names.flatMap((name) => {
    const value = headers[name];
    return (Array.isArray(value) ? value : [value ?? '']).map((v) => `  ${name}: ${v}`);
  });
};

/** The scrollable text of one side of a record, wrapped to `width`. */
export function recordLines(record: HttpTrafficRecord, side: Side, width: number): string[] {
  const lines: string[] = [];
  if (side === 'request') {
    lines.push(`${record.method} ${record.protocol.toLowerCase()}://${record.domain}${record.pathname}`);
    // The template the entry is counted under in `tapline stats` and the routes view.
    if (record.route) lines.push(`Route ${record.route}`);
    lines.push('', 'Headers');
    lines.push(...headerLines(record.request.headers));
    if (Object.keys(record.request.queryParams).length > 0)
      lines.push('', 'Query', ...headerLines(record.request.queryParams));
    lines.push('', 'Body', ...prettyBody(record.request.body).split('\n'));
  } else {
    lines.push(`${record.status} ${record.level} in ${record.elapsedTime} ms`, '', 'Headers');
    lines.push(...headerLines(record.response.headers));
    lines.push('', 'Body', ...prettyBody(record.response.body).split('\n'));
  }
  return lines.flatMap((l) => wrapLine(l, width));
}
