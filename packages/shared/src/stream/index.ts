export * from './follow.js';
export * from './protocol.js';
export * from './reconnect.js';
export * from './sse.js';
