// Everything a browser may load too (packages/web imports `@tapline/shared/browser`)...
export * from './browser.js';
// ...and what needs Node or only the daemon and capture clients use.
export * from './schemas/compose-fast.js';
export * from './schemas/ingest-log.js';
export * from './schemas/formats.js';
export * from './schemas/metrics.js';
export * from './schemas/alert.js';
export * from './alerts/condition.js';
export * from './schemas/route-rules.js';
export * from './schemas/stats.js';
export * from './schemas/api-contract.js';
export * from './contract.js';
export * from './client.js';
export * from './home.js';
export * from './capture/index.js';
export * from './redact/index.js';
export * from './id-prefix.js';
export * from './record-rules.js';
export * from './routes/index.js';
