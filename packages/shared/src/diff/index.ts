export * from './compare.js';
export * from './path.js';
