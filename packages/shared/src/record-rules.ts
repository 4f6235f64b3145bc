import type { Level } from './schemas/traffic-enums.js';

/**
 * The rules by which a compose body becomes a stored record, in one place: the daemon stores by
 * them, and the CLI applies them to records it never sent (a `--exclude` filter, a replayed answer)
 * so that they read as the daemon would have stored them.
 */

/** docs/decisions.md §5.6: 5xx is FATAL, 4xx is WARNING, anything else INFO. */
export function levelOf(status: number): Level {
  if (status >= 500) return 'FATAL';
  if (status >= 400) return 'WARNING';
  return 'INFO';
}

/**
 * docs/decisions.md §5.7: the host as a browser shows it, lower case, with the port only when it
 * is not the scheme's default. Throws for a string that is not a URL (the schema refused it before).
 */
export const domainOf = (domainUrl: string): string => new URL(domainUrl).host.toLowerCase();

/** docs/decisions.md §5.1: the daemon refuses a longer `pathnameUrl`. */
export const MAX_PATHNAME = 8192;

/**
 * docs/decisions.md §5.8, for clients: the pathname is the URL's path alone (its query goes to
 * `queryParams`), cut to MAX_PATHNAME, since a record with a cut path is better than none. The
 * daemon then stores `pathnameUrl` exactly as submitted.
 */
export const pathnameOf = (url: URL): string => (url.pathname || '/').slice(0, MAX_PATHNAME);
