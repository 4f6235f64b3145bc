export * from './keys.js';
export { redactText } from './text.js';
