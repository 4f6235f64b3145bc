export * from './template.js';
export * from './rules.js';
export * from './suggest.js';
