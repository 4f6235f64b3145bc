import type { RecordBody } from '@tapline/shared';
import { httpSpan } from './http-span.js';
import { attributeMap, type ExportTraceRequest, type OtlpSpan } from './request.js';

/** One exception event, as a core log will show it. */
export interface SpanException {
  readonly title: string;
  readonly description: string;
  readonly stack: string;
}

/** A server span that becomes an entry, with the distinct exceptions of it and the spans under it. */
export interface SpanRecord {
  readonly serviceName: string;
  readonly body: RecordBody;
  readonly exceptions: SpanException[];
}

export interface Translation {
  readonly records: SpanRecord[];
  /** Exceptions whose span's parent is not in this export (it may come in a later one): stored unlinked. */
  readonly unlinked: { readonly serviceName: string; readonly exception: SpanException }[];
  /** HTTP server spans that could not be records, with the first reasons. */
  readonly rejected: { readonly count: number; readonly reasons: string[] };
  /** Spans that are not server spans of an HTTP request with a recorded method. */
  readonly ignored: number;
}

interface Located {
  readonly span: OtlpSpan;
  readonly serviceName: string;
}

const key = (traceId: string | undefined, spanId: string | undefined) => `${traceId ?? ''}/${spanId ?? ''}`;
/** A guard against a parent cycle in a malformed export; real traces are far shallower. */
const MAX_DEPTH = 256;

function exceptionsOf(span: OtlpSpan): SpanException[] {
  return (span.events ?? [])
    .filter((event) => event.name === 'exception')
    .map((event) => {
      const a = attributeMap(event.attributes);
      const str = (name: string) => (typeof a.get(name) === 'string' ? String(a.get(name)) : '');
      return {
        title: str('exception.type') || 'Exception',
        description: str('exception.message'),
        stack: str('exception.stacktrace'),
      };
    });
}

/**
 * Server spans of HTTP requests become records; an exception event becomes a core log of the
 * nearest HTTP server span at or above its span in the same trace (instrumentations record them
 * on the handler's span, under the server span). Each distinct exception is kept once per record.
 */
export function translate(request: ExportTraceRequest): Translation {
  const spans: Located[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const service = attributeMap(resourceSpans.resource?.attributes).get('service.name');
    const serviceName = typeof service === 'string' ? service : '';
    for (const scope of resourceSpans.scopeSpans ?? [])
      for (const span of scope.spans ?? []) spans.push({ span, serviceName });
  }
  const byKey = new Map(spans.map((s) => [key(s.span.traceId, s.span.spanId), s]));
  const records = new Map<string, SpanRecord>();
  const rejected: { count: number; reasons: string[] } = { count: 0, reasons: [] };
  let ignored = 0;
  for (const { span, serviceName } of spans) {
    const http = httpSpan(span);
    if (http.kind === 'record')
      records.set(key(span.traceId, span.spanId), { serviceName, body: http.body, exceptions: [] });
    else if (http.kind === 'ignored') ignored += 1;
    else {
      rejected.count += 1;
      if (rejected.reasons.length < 3) rejected.reasons.push(http.reason);
    }
  }

  const unlinked: Translation['unlinked'] = [];
  for (const { span, serviceName } of spans) {
    const exceptions = exceptionsOf(span);
    if (exceptions.length === 0) continue;
    const owner = ownerOf(span, byKey, records);
    if (owner === 'none') continue;
    for (const exception of exceptions) {
      if (owner === 'outside') unlinked.push({ serviceName, exception });
      else if (
        !owner.exceptions.some(
          (e) => e.title === exception.title && e.description === exception.description && e.stack === exception.stack,
        )
      ) {
        owner.exceptions.push(exception);
      }
    }
  }
  return { records: [...records.values()], unlinked, rejected, ignored };
}

/** The record at or above `span`; `outside` when the chain leaves this export, `none` at a root without one. */
function ownerOf(
  span: OtlpSpan,
  byKey: Map<string, Located>,
  records: Map<string, SpanRecord>,
): SpanRecord | 'outside' | 'none' {
  let current: OtlpSpan | undefined = span;
  for (let depth = 0; current && depth < MAX_DEPTH; depth += 1) {
    const record = records.get(key(current.traceId, current.spanId));
    if (record) return record;
    if (!current.parentSpanId) return 'none';
    current = byKey.get(key(current.traceId, current.parentSpanId))?.span;
  }
  return 'outside';
}
