import { ExitError } from '../exit-error.js';

const ENTER = new Set(['\r', '\n']);
const ERASE = new Set(['\u007f', '\b']);
const CANCEL = new Set(['\u0003', '\u0004']);

/**
 * Reads one line from a terminal without echoing it (a password). The terminal is put in raw
 * mode, so every key arrives as typed: Enter ends the line, Backspace takes back a character,
 * Ctrl-C and Ctrl-D cancel (exit 1, nothing changed). Pasted text arrives as one chunk and is taken whole.
 */
export function askHidden(question: string, input: NodeJS.ReadStream, output: NodeJS.WritableStream): Promise<string> {
  output.write(question);
  input.setRawMode(true);
  input.setEncoding('utf8');
  input.resume();
  let typed = '';
  return new Promise<string>((resolve, reject) => {
    const finish = (settle: () => void) => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      output.write('\n');
      settle();
    };
    function onData(chunk: string) {
      for (const key of chunk) {
        if (ENTER.has(key)) return finish(() => resolve(typed));
        if (CANCEL.has(key)) return finish(() => reject(new ExitError('cancelled; nothing changed')));
        if (ERASE.has(key)) typed = typed.slice(0, -1);
        else if (key >= ' ') typed += key;
      }
    }
    input.on('data', onData);
  });
}

/** A new password, typed twice on the terminal; the two must match. */
export async function askNewPassword(
  email: string,
  input: NodeJS.ReadStream,
  output: NodeJS.WritableStream,
): Promise<string> {
  const first = await askHidden(`New password for ${email}: `, input, output);
  const again = await askHidden('Again: ', input, output);
  if (first !== again) throw new ExitError('the two passwords differ; nothing changed');
  return first;
}
