/**
 * The name and labels of one series as the Prometheus text format writes them, prom-client's
 * order: a histogram bucket's `le` first. `labels` is the label text as it must appear (already
 * escaped), so that a test states the escaping it expects rather than computing it.
 */
export const promSeries = (name: string, labels: string, le?: string): string =>
  `${name}{${le === undefined ? '' : `le="${le}",`}${labels}}`;

/** The value of the one sample written exactly as `series` (a bare name for a series without labels). */
export function promSample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
