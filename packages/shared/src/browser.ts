/**
 * What a browser may import (`@tapline/shared/browser`, used by packages/web): the contract, the
 * typed client, the stream follower, the filter language, the alert rules' schemas and condition
 * language (for their state and values) and the formatting helpers. The index
 * also re-exports capture and home-folder code that needs Node's modules.
 */
export * from './schemas/common.js';
export * from './schemas/traffic-source.js';
export * from './schemas/webhook.js';
export * from './schemas/core-log.js';
export * from './schemas/auth.js';
export * from './schemas/http-traffic.js';
export * from './schemas/stats.js';
export * from './schemas/alert.js';
export * from './alerts/condition.js';
export * from './contract-routes.js';
export * from './contract.js';
export * from './client.js';
export { PAGE_START_PATHS } from './paths.js';
export * from './format.js';
export * from './curl.js';
export * from './filter/index.js';
export * from './stream/index.js';
export * from './json.js';
export * from './diff/index.js';
export * from './capture/placeholder.js';
export * from './redact/keys.js';
export * from './redact/places.js';
export * from './record-rules.js';
