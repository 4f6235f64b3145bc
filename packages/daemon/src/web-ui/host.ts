import { isIP } from 'node:net';

/**
 * Whether a `Host` header names this daemon, for the web UI (docs/decisions.md §24.3). DNS
 * rebinding needs a name the attacker's DNS answers with the daemon's address, so an IP literal
 * and `localhost` (which browsers resolve to loopback themselves) are always safe; any other name
 * must be the `--host` the daemon listens on or one given with `--ui-host`.
 */
export function hostNamesDaemon(header: string | undefined, allowed: ReadonlySet<string>): boolean {
  const name = hostName(header);
  if (name === undefined) return false;
  if (isIP(name) !== 0) return true;
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  return allowed.has(name);
}

/** The name without its port, lower case, IPv6 without brackets; undefined for a malformed header. */
export function hostName(header: string | undefined): string | undefined {
  const text = header?.trim().toLowerCase();
  if (!text) return undefined;
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    const rest = text.slice(end + 1);
    return end > 0 && (rest === '' || /^:\d+$/.test(rest)) ? text.slice(1, end) : undefined;
  }
  const match = /^([a-z0-9.-]+)(?::\d+)?$/.exec(text);
  return match?.[1]?.replace(/\.$/, '');
}
