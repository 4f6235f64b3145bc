import clipboard from 'clipboardy';

/** Where a copy went: the system clipboard (xsel, pbcopy...) or the terminal's, through OSC 52. */
export type CopiedTo = 'clipboard' | 'terminal';

/** Many terminals refuse longer OSC 52 payloads (xterm's default is 100 000 bytes of base64). */
export const OSC52_MAX_BASE64 = 100_000;

/** OSC 52: asks the terminal itself to set its clipboard, so copying works over SSH and in tmux. */
export const osc52 = (base64: string): string => `\u001B]52;c;${base64}\u0007`;

export interface CopyOptions {
  readonly stdout: { write(text: string): unknown };
  /** The system clipboard; rejects when there is none (no xsel, no display). */
  readonly system?: (text: string) => Promise<void>;
}

/**
 * The system clipboard when it answers, else OSC 52 on the terminal. OSC 52 cannot tell whether
 * the terminal took it (tmux needs `set-clipboard on`), so the notice names the way it went.
 */
export async function copyText(
  text: string,
  { stdout, system = (t) => clipboard.write(t) }: CopyOptions,
): Promise<CopiedTo> {
  try {
    await system(text);
    return 'clipboard';
  } catch (error) {
    const base64 = Buffer.from(text, 'utf8').toString('base64');
    if (base64.length > OSC52_MAX_BASE64) throw error;
    stdout.write(osc52(base64));
    return 'terminal';
  }
}
