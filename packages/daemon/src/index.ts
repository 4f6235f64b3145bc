/**
 * The daemon as a library: the app factory and what it is built from, for embedding Tapline in
 * another process and for the test kit (packages/testkit), which drives it in-process.
 */
export { type App, createApp, type AppOptions } from './app.js';
export { openDatabase, type Db, type OpenedDatabase, type Store } from './db/open.js';
export { systemClock, type Clock } from './clock.js';
export { defaultConfig, type DaemonConfig } from './config.js';
export type { Deps } from './deps.js';
export { serve, type RunningDaemon } from './serve.js';
export { listen, MAX_HEADER_BYTES } from './http/listen.js';
export { createUser } from './auth/users.js';
export { hashPassword } from './auth/passwords.js';
export type { BatchWorker } from './ingest/prepare-pool.js';
export type { WebhookWorker } from './webhooks/worker.js';
export type { AlertEvaluator } from './alerts/evaluator.js';
export { copyDatabase, type CopyReporter } from './copy/copy.js';
export { COPIED_TABLES } from './copy/tables.js';
// For the test kit's databases as older daemons wrote them (the upgrade tests of db/).
export { migrationProvider } from './db/migrations/index.js';
export { plainValues } from './db/stored-values.js';
export { recordOf } from './http-traffic/repo.js';
