import { BlockList, isIP } from 'node:net';
import { WEBHOOK_URL_RULES } from '@tapline/shared/lean';
import type { Webhook } from '@tapline/shared';

/**
 * The two lists of addresses, made by the first check: a start never checks one, and Node loads
 * its BlockList's modules at the first list made (issue 30's cold start).
 */
let lists: { readonly alwaysBlocked: BlockList; readonly private: BlockList } | undefined;

function addressLists(): NonNullable<typeof lists> {
  if (lists) return lists;
  /** Link-local and cloud-metadata addresses: never a webhook target, whatever the flags. */
  const alwaysBlocked = new BlockList();
  alwaysBlocked.addSubnet('169.254.0.0', 16, 'ipv4');
  alwaysBlocked.addSubnet('0.0.0.0', 8, 'ipv4');
  alwaysBlocked.addSubnet('fe80::', 10, 'ipv6');
  alwaysBlocked.addAddress('fd00:ec2::254', 'ipv6');
  // 169.254.0.0/16 inside IPv6: IPv4-compatible, SIIT-translated and NAT64 spellings.
  alwaysBlocked.addSubnet('::a9fe:0', 112, 'ipv6');
  alwaysBlocked.addSubnet('::ffff:0:a9fe:0', 112, 'ipv6');
  alwaysBlocked.addSubnet('64:ff9b::a9fe:0', 112, 'ipv6');
  // Alibaba Cloud's metadata service sits inside 100.64.0.0/10, which is otherwise only "private".
  alwaysBlocked.addAddress('100.100.100.200', 'ipv4');
  alwaysBlocked.addAddress('::', 'ipv6');

  /** Loopback and private ranges: allowed only with `--allow-private-webhooks`. */
  const privateRanges = new BlockList();
  privateRanges.addSubnet('127.0.0.0', 8, 'ipv4');
  privateRanges.addSubnet('10.0.0.0', 8, 'ipv4');
  privateRanges.addSubnet('172.16.0.0', 12, 'ipv4');
  privateRanges.addSubnet('192.168.0.0', 16, 'ipv4');
  privateRanges.addSubnet('100.64.0.0', 10, 'ipv4');
  privateRanges.addAddress('::1', 'ipv6');
  privateRanges.addSubnet('fc00::', 7, 'ipv6');
  lists = { alwaysBlocked, private: privateRanges };
  return lists;
}

const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

export type AddressClass = 'blocked' | 'private' | 'public';

/** `::ffff:a9fe:a9fe` is 169.254.169.254 in disguise; judge mapped addresses as IPv4. */
function unmapIpv4(ip: string): string {
  const match = /^::ffff:(?:([0-9a-f]{1,4}):([0-9a-f]{1,4})|(\d+\.\d+\.\d+\.\d+))$/i.exec(ip);
  if (!match) return ip;
  if (match[3]) return match[3];
  const hi = parseInt(match[1] ?? '0', 16);
  const lo = parseInt(match[2] ?? '0', 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

/** Classifies an IP literal; used at creation (literal hosts) and again at delivery (resolved ones). */
export function classifyAddress(address: string): AddressClass {
  const ip = unmapIpv4(address.replace(/^\[|\]$/g, '').toLowerCase());
  const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  const { alwaysBlocked, private: privateRanges } = addressLists();
  if (alwaysBlocked.check(ip, family)) return 'blocked';
  if (privateRanges.check(ip, family)) return 'private';
  return 'public';
}

function classifyHost(hostname: string): AddressClass {
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (isIP(unmapIpv4(host))) return classifyAddress(host);
  if (METADATA_NAMES.has(host)) return 'blocked';
  if (host === 'localhost' || host.endsWith('.localhost')) return 'private';
  return 'public';
}

/**
 * Checks a webhook's `value` from its text alone: no DNS lookup happens here. Returns the
 * problem as a message, or null when the target is acceptable.
 */
export function checkWebhookTarget(type: Webhook['type'], value: string, allowPrivate: boolean): string | null {
  const rule = WEBHOOK_URL_RULES[type];
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `value must be a URL such as ${rule.example}`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'value must be an http or https URL';
  if (url.username || url.password) return 'value must not carry a user name or password';
  const cls = classifyHost(url.hostname);
  if (cls === 'blocked') return 'value points at a link-local or cloud-metadata address, which is never allowed';
  if (cls === 'private' && !allowPrivate) {
    return 'value points at a loopback or private address; start taplined with --allow-private-webhooks to allow it';
  }
  if (rule.path && !rule.path.test(url.pathname)) return `value must be a ${type} webhook URL such as ${rule.example}`;
  if (cls === 'public' && rule.hosts) {
    if (!rule.hosts.includes(url.hostname.toLowerCase()))
      return `value must be a ${type} webhook URL such as ${rule.example}`;
    if (url.protocol !== 'https:') return `value must use https for ${type}`;
  }
  return null;
}
