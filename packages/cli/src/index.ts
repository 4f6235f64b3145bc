/**
 * The CLI as a library: `runCli` with its `Io` seam, and the interface the terminal UI reads its
 * data through, for embedding tapline in another process and for the test kit (packages/testkit),
 * which drives both in-process.
 */
export { runCli } from './program.js';
export type { Io } from './io.js';
export type { FollowOptions, StreamStatus, UiApi } from './ui/api.js';
export type { CopiedTo } from './ui/clipboard.js';
export { newestFirst } from './ui/table-state.js';
export type { ReplayResponse } from './replay/send.js';
