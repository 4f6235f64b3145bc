import type {
  AlertRule,
  CoreLog,
  FollowStatus,
  HttpTraffic,
  HttpTrafficRecord,
  StatsAnswer,
  TrafficSource,
  Webhook,
} from '@tapline/shared';
import type { Page } from '../api.js';
import type { ReplayResponse } from '../replay/send.js';
import type { CopiedTo } from './clipboard.js';

/** The state of the live connection, for the header and the status line: the follower's, less `stopped` (the UI is gone by then). */
export type StreamStatus = Exclude<FollowStatus, { readonly state: 'stopped' }>;

export interface FollowOptions {
  /** Filter expression in the shared language; empty for everything. */
  readonly q: string;
  readonly signal: AbortSignal;
  /** Stream only what is newer than this entry (the newest one already shown). */
  readonly after?: HttpTraffic | undefined;
  onEntry: (entry: HttpTraffic) => void;
  onStatus: (status: StreamStatus) => void;
}

/** Where the filter prompt says an expression goes wrong; `column` is 1-based. */
export type FilterCheck =
  { readonly ok: true } | { readonly ok: false; readonly message: string; readonly column: number };

/**
 * Everything the terminal UI asks of the outside world. Components get it as a prop, so tests
 * drive every view with a fake and the real one wraps the typed client.
 */
export interface UiApi {
  listSources(): Promise<readonly TrafficSource[]>;
  /** Newest first; `before` bounds the page (inclusive `endDate`) for paging into history. */
  listTraffic(
    sourceId: string,
    options: { q: string; limit: number; page?: number; before?: string },
  ): Promise<Page<HttpTraffic>>;
  getTraffic(sourceId: string, id: string): Promise<HttpTrafficRecord>;
  /** Resolves when `signal` aborts; reconnecting is its own business. */
  follow(sourceId: string, options: FollowOptions): Promise<void>;
  listCoreLogs(sourceId: string, page: number, limit: number): Promise<Page<CoreLog>>;
  listWebhooks(sourceId: string): Promise<readonly Webhook[]>;
  /** `GET /stats` by route and method over the last `since` (`1h`), with a series for the sparklines. */
  routeStats(sourceId: string, since: string): Promise<StatsAnswer>;
  /** The alert rules of a source with their state (`GET /alerts/:trafficSourceId`), for the header's count and `a`. */
  listAlertRules(sourceId: string): Promise<readonly AlertRule[]>;
  deleteWebhook(id: string): Promise<void>;
  checkFilter: (q: string) => FilterCheck;
  /** The curl command that replays a record, or null when none can be built. */
  curlFor(record: HttpTrafficRecord): string | null;
  /** Copies to the system clipboard, else the terminal's (OSC 52); rejects when neither can take it. */
  copy(text: string): Promise<CopiedTo>;
  /** Sends the recorded request again (`tapline traffic replay`); rejects, naming them, when values were redacted. */
  replay(record: HttpTrafficRecord, signal: AbortSignal): Promise<ReplayResponse>;
}

/** Turns anything thrown into one line for the status bar: never a stack trace. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message.split('\n')[0] ?? error.name;
  return String(error);
}
