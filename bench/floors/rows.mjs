// What every batch floor does to a batch's records before storing them: the daemon's redaction
// rules (packages/daemon/src/ingest/redact.ts) and its serialization, written plainly, with
// no framework, validation or worker thread. Shared by sqlite-batch.mjs and postgres-copy.mjs.
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key']);
const SECRET_KEY = /password|passwd|secret|token|api[-_]?key|authorization|session/i;
const REDACTED = '[REDACTED]';
function headers(map) {
  const out = {};
  for (const name in map)
    out[name] = SECRET_HEADERS.has(name.toLowerCase()) || SECRET_KEY.test(name) ? REDACTED : map[name];
  return out;
}
function deep(value) {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(deep);
  const out = {};
  for (const key in value) out[key] = SECRET_KEY.test(key) ? REDACTED : deep(value[key]);
  return out;
}
const json = (v) => (v === null || v === undefined ? null : JSON.stringify(v));
export const level = (status) => (status >= 500 ? 'FATAL' : status >= 400 ? 'WARNING' : 'INFO');
const hosts = new Map();

export function prepare(records) {
  return records.map((r) => {
    let host = hosts.get(r.domainUrl);
    if (host === undefined) hosts.set(r.domainUrl, (host = new URL(r.domainUrl).host.toLowerCase()));
    return {
      host,
      pathname: r.pathnameUrl,
      status: r.status,
      method: r.method.toUpperCase(),
      protocol: r.protocol.toUpperCase(),
      elapsed: r.elapsedTime,
      user: r.trafficUserId ?? null,
      requestHeaders: JSON.stringify(headers(r.requestHeaders)),
      requestBody: json(deep(r.requestBody)),
      query: JSON.stringify(headers(r.queryParams)),
      responseHeaders: JSON.stringify(headers(r.responseHeaders)),
      responseBody: json(deep(r.responseBody)),
    };
  });
}
