import {
  type AlertRule,
  compilePredicate,
  type CoreLog,
  type HttpTraffic,
  type HttpTrafficRecord,
  levelOf,
  type StatsAnswer,
  type StatsGroup,
  toCurl,
  type TrafficSource,
  tryParseFilter,
  type Webhook,
} from '@tapline/shared';
import {
  type CopiedTo,
  type FollowOptions,
  newestFirst,
  type ReplayResponse,
  type StreamStatus,
  type UiApi,
} from '@tapline/cli';

export const SOURCE: TrafficSource = {
  id: '0190a000-0000-7000-8000-000000000001',
  name: 'shop',
  trafficDomain: 'shop.example.com',
  userId: '0190a000-0000-7000-8000-0000000000aa',
  createdAt: '2026-11-21T10:00:00.000Z',
  updatedAt: '2026-11-21T10:00:00.000Z',
};

let serial = 0;
const uuid = (n: number) => `0190a000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;

/** A list entry; `at` in ms since the epoch, defaulting to now plus a tie-breaking serial. */
export function makeEntry(overrides: Partial<HttpTraffic> = {}): HttpTraffic {
  const n = ++serial;
  const status = overrides.status ?? 200;
  return {
    id: uuid(0x100000 + n),
    status,
    method: 'GET',
    level: levelOf(status),
    elapsedTime: 12,
    trafficSourceId: SOURCE.id,
    domainId: uuid(0x200000),
    pathnameId: uuid(0x300000),
    requestId: uuid(0x400000 + n),
    responseId: uuid(0x500000 + n),
    createdAt: new Date(Date.now() - 1000 + n).toISOString(),
    domain: 'shop.example.com',
    pathname: `/api/orders/${n}`,
    protocol: 'HTTPS',
    ...overrides,
  };
}

export function recordOf(entry: HttpTraffic): HttpTrafficRecord {
  return {
    ...entry,
    request: {
      headers: { accept: 'application/json', 'x-request-id': `req-${entry.id.slice(-4)}` },
      body: { sku: 'A-1', qty: 2 },
      queryParams: { page: '2' },
    },
    response: { headers: { 'content-type': 'application/json' }, body: { ok: true, orderId: 'ord_42' } },
  };
}

/** An in-memory daemon for component tests: list, follow (push with `emit`), logs, webhooks. */
export class FakeApi implements UiApi {
  entries: HttpTraffic[] = [];
  sources: TrafficSource[] = [SOURCE];
  logs: CoreLog[] = [];
  webhooks: Webhook[] = [];
  clipboard: string | null = null;
  clipboardWorks = true;
  copiedTo: CopiedTo = 'clipboard';
  readonly listCalls: { q: string; before?: string; page?: number }[] = [];
  private followers: { readonly options: FollowOptions; readonly reject: (error: Error) => void }[] = [];

  constructor(entries: readonly HttpTraffic[] = []) {
    this.entries = [...entries].sort(newestFirst);
  }

  readonly listSources = async () => this.sources;

  listTraffic = async (_sourceId: string, o: { q: string; limit: number; page?: number; before?: string }) => {
    this.listCalls.push({ q: o.q, ...(o.before ? { before: o.before } : {}), ...(o.page ? { page: o.page } : {}) });
    const match = o.q ? compilePredicate(tryParseOrThrow(o.q)) : () => true;
    const all = this.entries.filter((e) => match(e) && (!o.before || e.createdAt <= o.before));
    const page = o.page ?? 1;
    return { data: all.slice((page - 1) * o.limit, page * o.limit), meta: { total: all.length, page, limit: o.limit } };
  };

  getTraffic = async (_sourceId: string, id: string) => {
    const entry = this.entries.find((e) => e.id === id);
    if (!entry) throw new Error('Not Found');
    return recordOf(entry);
  };

  follow = (_sourceId: string, options: FollowOptions) =>
    new Promise<void>((resolve, reject) => {
      const follower = { options, reject };
      this.followers.push(follower);
      options.onStatus({ state: 'live', cursor: undefined, reconnected: false });
      options.signal.addEventListener('abort', () => {
        this.followers = this.followers.filter((f) => f !== follower);
        resolve();
      });
    });

  /** Stores entries and pushes them to every follower whose filter they match. */
  emit(...entries: HttpTraffic[]): void {
    this.entries = [...entries, ...this.entries].sort(newestFirst);
    for (const { options: f } of this.followers) {
      const match = f.q ? compilePredicate(tryParseOrThrow(f.q)) : () => true;
      for (const e of entries) if (match(e)) f.onEntry(e);
    }
  }

  status(status: StreamStatus): void {
    for (const { options } of this.followers) options.onStatus(status);
  }

  /** Every follower gives up with `error`, as the real one does on an answer retrying cannot fix (a 401). */
  giveUp(error: Error): void {
    const gone = this.followers;
    this.followers = [];
    for (const { reject } of gone) reject(error);
  }

  get following(): number {
    return this.followers.length;
  }

  /** The groups `routeStats` answers; each call is counted in `statsCalls`. */
  routeGroups: StatsGroup[] = [];
  statsCalls = 0;
  routeStats = async (_sourceId: string, since: string): Promise<StatsAnswer> => {
    this.statsCalls += 1;
    return {
      data: this.routeGroups,
      meta: {
        since: new Date(Date.now() - (since === '1h' ? 3_600_000 : 0)).toISOString(),
        until: new Date().toISOString(),
        by: 'route,method',
      },
    };
  };

  listCoreLogs = async (_sourceId: string, page: number, limit: number) => ({
    data: this.logs.slice((page - 1) * limit, page * limit),
    meta: { total: this.logs.length, page, limit },
  });
  listWebhooks = async () => this.webhooks;

  /** The rules `listAlertRules` answers; each call is counted in `alertCalls`. */
  alertRules: AlertRule[] = [];
  alertCalls = 0;
  listAlertRules = async () => {
    this.alertCalls += 1;
    return this.alertRules;
  };
  deleteWebhook = async (id: string) => {
    this.webhooks = this.webhooks.filter((w) => w.id !== id);
  };

  checkFilter = (q: string) => {
    const parsed = tryParseFilter(q);
    return parsed.ok
      ? ({ ok: true } as const)
      : ({ ok: false, message: parsed.error.reason, column: parsed.error.column } as const);
  };

  curlFor = (record: HttpTrafficRecord) => toCurl(record);

  /** What `replay` answers (an Error rejects); each replayed record is kept in `replayed`. */
  replyWith: ReplayResponse | Error = {
    status: 200,
    statusText: 'OK',
    headers: { 'content-type': 'application/json' },
    body: { ok: true, replayed: true },
    elapsedTime: 3,
  };
  readonly replayed: HttpTrafficRecord[] = [];
  replay = async (record: HttpTrafficRecord, _signal: AbortSignal): Promise<ReplayResponse> => {
    this.replayed.push(record);
    if (this.replyWith instanceof Error) throw this.replyWith;
    return this.replyWith;
  };

  copy = async (text: string): Promise<CopiedTo> => {
    if (!this.clipboardWorks) throw new Error('no clipboard');
    this.clipboard = text;
    return this.copiedTo;
  };
}

function tryParseOrThrow(q: string) {
  const parsed = tryParseFilter(q);
  if (!parsed.ok) throw parsed.error;
  return parsed.expr;
}

export const makeLog = (overrides: Partial<CoreLog> = {}): CoreLog => ({
  id: uuid(0x600000 + ++serial),
  title: 'Database timeout',
  description: 'the orders query took too long',
  source: 'api-server',
  layer: 'Database',
  stack: 'Error: timeout\n    at query (db.ts:10:5)\n    at handler (orders.ts:22:9)',
  createdAt: new Date().toISOString(),
  httpTrafficId: null,
  ...overrides,
});

export const makeWebhook = (overrides: Partial<Webhook> = {}): Webhook => ({
  id: uuid(0x700000 + ++serial),
  type: 'slack',
  level: 'fatal',
  value: 'https://hooks.slack.com/services/T000/B000/XXXX',
  trafficSourceId: SOURCE.id,
  createdAt: '2026-11-21T10:00:00.000Z',
  updatedAt: '2026-11-21T10:00:00.000Z',
  ...overrides,
});

/** A rule of SOURCE, `ok` unless told; `p95 > 300ms` on `GET /checkout` by default. */
export const makeAlertRule = (overrides: Partial<AlertRule> = {}): AlertRule => ({
  id: uuid(0x800000 + ++serial),
  trafficSourceId: SOURCE.id,
  when: 'p95 > 300ms',
  metric: 'p95',
  operator: '>',
  threshold: 300,
  baselineDays: null,
  route: '/checkout',
  method: 'GET',
  forMs: 0,
  windowMs: 300_000,
  minRequests: 10,
  repeatMs: null,
  webhookIds: [uuid(0x700000)],
  state: 'ok',
  stateSince: '2026-11-21T10:00:00.000Z',
  lastValue: null,
  lastRequests: null,
  evaluatedAt: null,
  createdAt: '2026-11-21T10:00:00.000Z',
  ...overrides,
});
