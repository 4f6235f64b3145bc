/**
 * What needs no schema (`@tapline/shared/lean`): the contract's routes without their schemas and
 * the helpers beside them. Nothing here imports zod's schemas, so a module that imports only this
 * builds none when it loads: the daemon's start mounts every route from here and reads the
 * contract (the index) at a route's first request (docs/decisions.md §20.23). The index exports
 * all of it too, but `CAPTURE_PATHS`.
 */
export * from './contract-routes.js';
export * from './paths.js';
export * from './home.js';
export * from './json.js';
export * from './format.js';
export * from './id-prefix.js';
export * from './record-rules.js';
export * from './redact/index.js';
export * from './routes/index.js';
export * from './alerts/condition.js';
export * from './filter/ast.js';
export * from './filter/parse.js';
export * from './filter/print.js';
export * from './filter/predicate.js';
export * from './capture/transaction.js';
export * from './schemas/traffic-enums.js';
export * from './schemas/duration.js';
export * from './schemas/webhook-rules.js';
export * from './stream/events.js';
