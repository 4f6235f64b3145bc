/** What the pruner keeps: `null` turns a limit off. */
export interface RetentionPolicy {
  /** `--retention`: entries older than this go. */
  readonly maxAgeMs: number | null;
  /** `--max-db-size`: past this many bytes on disk (write-ahead log included) the oldest entries go. */
  readonly maxBytes: number | null;
  /** `--prune-every`: how often the pruner looks. */
  readonly everyMs: number;
}

export const DEFAULT_RETENTION = { retention: '30d', maxDbSize: '2GB', pruneEvery: '1m' } as const;

/** DEFAULT_RETENTION as the parser reads it (parse-flags.ts; the flag tests check the two agree). */
export const DEFAULT_POLICY: RetentionPolicy = { maxAgeMs: 30 * 86_400_000, maxBytes: 2 * 2 ** 30, everyMs: 60_000 };
