export * from './body.js';
export * from './truncation.js';
export * from './transaction.js';
export * from './recorder.js';
export { postJson, refusalOf } from './answers.js';
export * from './source.js';
