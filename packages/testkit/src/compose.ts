import type { ComposeRecordInput } from '@tapline/shared';
import sample from '../sample-record.json' with { type: 'json' };

/**
 * A valid compose body for `sourceId`, with any field overridden. One sample (sample-record.json,
 * which the bench reads too) for the in-process tests, the e2e tests and the examples, so they all
 * change together with the schema.
 */
export function composeBody(
  sourceId: string,
  overrides: Partial<Record<keyof ComposeRecordInput, unknown>> = {},
): ComposeRecordInput {
  // Overrides may be deliberately invalid (validation tests send them): the result is what a
  // client would send, which the daemon validates; the compiler cannot check it.
  return { ...sample, trafficSourceId: sourceId, ...overrides } as ComposeRecordInput;
}
