import { processIo } from './io.js';
import { runCli } from './program.js';

// The one place that exits. Ctrl-C aborts the signal: long-running commands end cleanly (exit 0).
const controller = new AbortController();
process.once('SIGINT', () => controller.abort());
process.once('SIGTERM', () => controller.abort());
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
});
const code = await runCli(process.argv.slice(2), processIo(controller.signal));
process.exitCode = code;
// Let stdout drain; then leave even if a stray handle (an idle keep-alive socket) is open.
process.stdout.write('', () => process.exit(code));
