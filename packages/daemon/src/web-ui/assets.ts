import { readFileSync } from 'node:fs';
import { isRecord } from '@tapline/shared/lean';

/** One file of the web UI, ready to send. */
export interface WebAsset {
  readonly type: string;
  readonly body: Buffer;
  readonly gzip: Buffer;
  /** Hashed names never change content: cached for a year. index.html is checked each time. */
  readonly immutable: boolean;
}

/** The web UI's files by URL path (`/`, `/assets/app-HASH.js`), from packages/web's build. */
export interface WebUi {
  readonly version: string;
  readonly files: ReadonlyMap<string, WebAsset>;
}

/** The pack when a request needs it (webUiOnFirstUse), or null when it cannot be read. */
export type WebUiSource = () => WebUi | null;

const isText = (value: unknown): value is string => typeof value === 'string';

/**
 * Reads web-ui.json, the pack packages/web's Vite build writes (its vite.config.ts) and the
 * daemon's build copies beside its bundle (the single executable carries it the same way). Every file comes in it as text and
 * gzipped, so the daemon compresses nothing at run time.
 */
export function readWebUi(file: URL | string): WebUi {
  const pack: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (!isRecord(pack) || !isText(pack.version) || !Array.isArray(pack.files)) throw new Error('not a web UI pack');
  const files = new Map<string, WebAsset>();
  for (const entry of pack.files) {
    if (!isRecord(entry) || !isText(entry.path) || !isText(entry.type) || !isText(entry.text) || !isText(entry.gzip))
      throw new Error('a file of the web UI pack is malformed');
    files.set(entry.path, {
      type: entry.type,
      body: Buffer.from(entry.text, 'utf8'),
      gzip: Buffer.from(entry.gzip, 'base64'),
      immutable: entry.path.startsWith('/assets/'),
    });
  }
  if (!files.has('/')) throw new Error('the web UI pack has no index page');
  return { version: pack.version, files };
}

/**
 * The pack, read at its first use rather than before the daemon listens: reading and decoding its
 * 0.7 MB was 15 to 25 ms of every start's CPU (issue 30's cold start). Its first use is the
 * daemon's own read a moment after the start (serve.ts) or a request for the page before that,
 * so the page served is the one installed with the running daemon, as when it was read at start.
 * A read that fails is not kept: the next request tries again (a pack being replaced by an
 * install, a passing EMFILE), and only the first failure of a run of them is reported to `failed`.
 */
export function webUiOnFirstUse(file: URL | string, failed: (error: unknown) => void): WebUiSource {
  let read: WebUi | undefined;
  let failing = false;
  return () => {
    if (read !== undefined) return read;
    try {
      read = readWebUi(file);
      failing = false;
      return read;
    } catch (error) {
      if (!failing) failed(error);
      failing = true;
      return null;
    }
  };
}
