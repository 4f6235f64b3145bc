export * from './harness.js';
export * from './database.js';
export * from './fixtures.js';
export * from './endpoint-cases.js';
export * from './batch-worker.js';
export * from './webhook-receivers.js';
export { composeBody } from '../compose.js';
export * from './dump.js';
