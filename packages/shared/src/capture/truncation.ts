/** The marker that ends a truncated text body, stating how much of it is shown. */
export function truncationMarker(shownBytes: number, totalBytes: number | undefined): string {
  return totalBytes === undefined
    ? `…[truncated by Tapline: first ${shownBytes} bytes shown]`
    : `…[truncated by Tapline: ${shownBytes} of ${totalBytes} bytes shown]`;
}

// `\u2026`, the marker's ellipsis, escaped: the daemon's bundle stays ASCII (docs/decisions.md §20.3).
const MARKER_AT_END = /\u2026\[truncated by Tapline: (?:first \d+|\d+ of \d+) bytes shown\]$/;

/** A text body split into what was kept of it and the truncation marker after it (empty when it was not cut). */
export function splitTruncation(text: string): { readonly kept: string; readonly marker: string } {
  const found = MARKER_AT_END.exec(text);
  return found ? { kept: text.slice(0, found.index), marker: found[0] } : { kept: text, marker: '' };
}
