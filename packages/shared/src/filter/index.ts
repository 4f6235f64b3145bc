export * from './ast.js';
export * from './parse.js';
export * from './print.js';
export * from './predicate.js';
export * from './query.js';
