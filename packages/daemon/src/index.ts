export { createApp, type AppOptions } from './app.js';
export { openDatabase, type Db, type OpenedDatabase } from './db/open.js';
export { systemClock, type Clock } from './clock.js';
export { defaultConfig, type DaemonConfig, type Deps } from './deps.js';
export { serve, type RunningDaemon } from './serve.js';
export { createUser } from './auth/users.js';
