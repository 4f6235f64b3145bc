import { DDSketch } from '@datadog/sketches-js';

/**
 * Latency sketches (docs/statistics.md): DDSketch with 1 % relative accuracy, so that any
 * percentile read from it is within 1 % of the exact one, and sketches of minutes merge into a
 * window exactly (a merge adds bin counts). Never quantile code of our own.
 */
export const RELATIVE_ACCURACY = 0.01;

export type Sketch = DDSketch;

export const newSketch = (): Sketch => new DDSketch({ relativeAccuracy: RELATIVE_ACCURACY });

export const encodeSketch = (sketch: Sketch): Uint8Array => sketch.toProto();

/** Into `into`, the sketch `bytes` holds (as stored); `null` (a row not yet filled) adds nothing. */
export function mergeBytes(into: Sketch, bytes: Uint8Array | null): void {
  if (bytes === null || bytes.byteLength === 0) return;
  into.merge(DDSketch.fromProto(bytes));
}

/** The percentile `q` (0..1) of what the sketch holds, in milliseconds; null when it holds nothing. */
export function quantileOf(sketch: Sketch, q: number): number | null {
  return sketch.count === 0 ? null : sketch.getValueAtQuantile(q);
}
