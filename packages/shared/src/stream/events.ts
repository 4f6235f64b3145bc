// The stream's event names and retry pace, without the schemas of protocol.ts: what a daemon's start
// needs of it (docs/decisions.md §20.23).

/**
 * The traffic stream's events (GET /http-traffic/:trafficSourceId/stream, docs/filter-language.md):
 * - `ready` first, data `{"cursor": id|null}`, with `id:` when there is a cursor: the connection
 *   is up and later events follow `cursor`. Without `after`, the cursor is the newest stored id.
 * - unnamed (`message`) events, one per entry, `id:` the entry id, data the list entry's JSON,
 *   oldest first: the replay after the cursor, then live entries.
 * - `overflow`, data `{"cursor": id|null}`: the client fell too far behind; the server closes and
 *   the client reconnects from its cursor.
 * - `: heartbeat` comments keep idle connections alive.
 */
export const STREAM_EVENT = { ready: 'ready', entry: 'message', overflow: 'overflow' } as const;

/** How a browser's EventSource should pace its retries; the same first step as docs/decisions.md §9.6. */
export const STREAM_RETRY_MS = 250;
