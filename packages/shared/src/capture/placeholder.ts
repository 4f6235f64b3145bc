import type { JsonValue } from '../schemas/http-traffic.js';

// Apart from body.ts, which needs Node's zlib: the web UI's replay reads placeholders too.

/**
 * The two markers of body.ts (`describeBinary`, `truncationMarker`), as they end a stored body.
 * `\u2026` is the ellipsis, escaped: the daemon's bundle stays ASCII (docs/decisions.md §20.3).
 */
const PLACEHOLDER =
  /(?:^\[binary body: [^\]\n]*, \d+ bytes[^\]\n]*\]|\u2026\[truncated by Tapline: [^\]\n]* bytes shown\])$/;

/**
 * The marker when a stored body is not what was sent (binary, or text cut at the limit), which a
 * replay must not send as if it were; null for a body stored whole.
 */
export function placeholderOf(body: JsonValue | undefined): string | null {
  return typeof body === 'string' ? (PLACEHOLDER.exec(body)?.[0] ?? null) : null;
}
