/** `0s`, `90s`, `15m`, `2h`, `7d`, `1w` in milliseconds; undefined for anything else. */
export function durationMs(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(s|m|h|d|w)$/.exec(text.trim());
  if (!match) return undefined;
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[match[2] ?? 's'] ?? 1_000;
  const value = Number(match[1]) * unit;
  return Number.isFinite(value) ? Math.round(value) : undefined;
}
