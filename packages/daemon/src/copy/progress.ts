import { SingleBar } from 'cli-progress';
import type { CopyReporter } from './copy.js';

/**
 * On a terminal, one bar for the whole copy (rows of all tables), redrawn in place; elsewhere
 * (a log, CI) one line per table as it completes, which a file can hold.
 */
export function progressReporter(stream: NodeJS.WriteStream): CopyReporter {
  if (stream.isTTY) {
    const bar = new SingleBar({
      stream,
      format: 'copying {bar} {percentage}% | {value}/{total} rows | {table}',
      hideCursor: true,
      etaBuffer: 50,
    });
    return {
      start: (total) => bar.start(total, 0, { table: '' }),
      advance: (table, rows) => bar.increment(rows, { table }),
      finish: () => bar.stop(),
    };
  }
  let current: { table: string; rows: number } | undefined;
  const flush = () => {
    if (current) stream.write(`copied ${current.table}: ${current.rows} rows\n`);
  };
  return {
    start: (total) => stream.write(`copying ${total} rows\n`),
    advance(table, rows) {
      if (current?.table !== table) {
        flush();
        current = { table, rows: 0 };
      }
      current.rows += rows;
    },
    finish: flush,
  };
}
