import type { ComposeRecordInput } from './schemas/http-traffic.js';

/**
 * A valid compose body for `sourceId`, with any field overridden. One sample for the in-process
 * tests, the e2e tests and the examples, so they all change together with the schema.
 */
export function composeBody(sourceId: string, overrides: Partial<Record<keyof ComposeRecordInput, unknown>> = {}): ComposeRecordInput {
  return {
    domainUrl: 'https://shop.example.com',
    pathnameUrl: '/api/orders',
    trafficSourceId: sourceId,
    status: 200,
    protocol: 'HTTPS',
    method: 'GET',
    elapsedTime: 12.5,
    requestHeaders: { accept: 'application/json' },
    requestBody: null,
    queryParams: {},
    responseHeaders: { 'content-type': 'application/json' },
    responseBody: { ok: true },
    ...overrides,
  } as ComposeRecordInput;
}
