import type { CoreLog, HttpTraffic, HttpTrafficRecord, TrafficSource, Webhook } from '@tapline/shared';

/** The state of the live connection, for the header and the status line. */
export type StreamStatus =
  | { readonly state: 'connecting' }
  | { readonly state: 'live' }
  | { readonly state: 'reconnecting'; readonly attempt: number; readonly reason: string };

export interface FollowOptions {
  /** Filter expression in the shared language; empty for everything. */
  readonly q: string;
  readonly signal: AbortSignal;
  /** Stream only what is newer than this entry (the newest one already shown). */
  readonly after?: HttpTraffic | undefined;
  onEntry: (entry: HttpTraffic) => void;
  onStatus: (status: StreamStatus) => void;
}

export interface Page<T> {
  readonly data: readonly T[];
  readonly total: number;
}

/** Where the filter prompt says an expression goes wrong; `column` is 1-based. */
export type FilterCheck = { readonly ok: true } | { readonly ok: false; readonly message: string; readonly column: number };

/**
 * Everything the terminal UI asks of the outside world. Components get it as a prop, so tests
 * drive every view with a fake and the real one wraps the typed client.
 */
export interface UiApi {
  listSources(): Promise<readonly TrafficSource[]>;
  /** Newest first; `before` bounds the page (inclusive `endDate`) for paging into history. */
  listTraffic(sourceId: string, options: { q: string; limit: number; page?: number; before?: string }): Promise<Page<HttpTraffic>>;
  getTraffic(sourceId: string, id: string): Promise<HttpTrafficRecord>;
  /** Resolves when `signal` aborts; reconnecting is its own business. */
  follow(sourceId: string, options: FollowOptions): Promise<void>;
  listCoreLogs(sourceId: string, page: number, limit: number): Promise<Page<CoreLog>>;
  listWebhooks(sourceId: string): Promise<readonly Webhook[]>;
  deleteWebhook(id: string): Promise<void>;
  checkFilter: (q: string) => FilterCheck;
  /** The curl command that replays a record, or null when none can be built. */
  curlFor(record: HttpTrafficRecord): string | null;
  /** Copies to the system clipboard; rejects when there is none (SSH, no display). */
  copy(text: string): Promise<void>;
}

/** Turns anything thrown into one line for the status bar: never a stack trace. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message.split('\n')[0] ?? error.name;
  return String(error);
}
