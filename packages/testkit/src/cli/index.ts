export * from './run.js';
export * from './fake-api.js';
export * from './wait.js';
