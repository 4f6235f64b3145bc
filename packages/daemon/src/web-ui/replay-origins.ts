import { UsageError } from '../exit-error.js';

/**
 * `scheme://host[:port]`, the host a name (optionally `*.`-prefixed) or an IPv4 literal, the
 * port a number or `*`: the CSP host-sources a browser takes. Nothing else may reach the header:
 * a `;` or a space would add directives or sources of the user's choosing without saying so.
 */
const ORIGIN =
  /^https?:\/\/(\*\.)?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*(?::(\d{1,5}|\*))?$/i;

/**
 * `--ui-replay-origin`, repeatable and comma-separated: origins the web UI's replay panel may send
 * to besides loopback, checked, lower-cased. A bad one is a usage error (exit 2) naming it.
 */
export function parseReplayOrigins(values: readonly string[]): string[] {
  const origins = values.flatMap((v) => v.split(',')).map((o) => o.trim().replace(/\/$/, ''));
  for (const origin of origins) {
    const port = ORIGIN.exec(origin)?.[2];
    if (!ORIGIN.test(origin) || (port !== undefined && port !== '*' && Number(port) > 65535))
      throw new UsageError(
        `--ui-replay-origin takes origins such as http://dev.internal:3000 or https://*.staging.example (got ${JSON.stringify(origin)})`,
      );
  }
  return [...new Set(origins.filter(Boolean).map((o) => o.toLowerCase()))];
}
