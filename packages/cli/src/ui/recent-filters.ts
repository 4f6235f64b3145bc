import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Recent filters of the UI's `/` prompt, kept in `<home>/ui-filters.json` between sessions. */
export function recentFiltersFile(home: string) {
  const path = join(home, 'ui-filters.json');
  return {
    load(): string[] {
      try {
        const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
        return Array.isArray(parsed) ? parsed.filter((v): v is string => typeof v === 'string').slice(0, 20) : [];
      } catch {
        return [];
      }
    },
    save(list: readonly string[]): void {
      try {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, `${JSON.stringify(list, null, 2)}\n`, { mode: 0o600 });
      } catch {
        // A read-only home only costs the history, never the session.
      }
    },
  };
}
