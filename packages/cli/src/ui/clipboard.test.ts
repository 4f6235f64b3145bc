import { describe, expect, it } from 'vitest';
import { copyText, OSC52_MAX_BASE64 } from './clipboard.js';

const terminal = () => {
  const written: string[] = [];
  return { written, stdout: { write: (t: string) => written.push(t) } };
};

describe('copyText', () => {
  it('uses the system clipboard when it answers, writing nothing to the terminal', async () => {
    const t = terminal();
    const copied: string[] = [];
    await expect(
      copyText('curl x', { stdout: t.stdout, system: async (text) => void copied.push(text) }),
    ).resolves.toBe('clipboard');
    expect(copied).toEqual(['curl x']);
    expect(t.written).toEqual([]);
  });

  it('falls back to OSC 52 on the terminal when there is no clipboard tool (SSH, tmux, no xsel)', async () => {
    const t = terminal();
    const noTool = async () => Promise.reject(new Error("Couldn't find the `xsel` binary"));
    await expect(
      copyText("curl -X GET 'https://shop.example.com/é'", { stdout: t.stdout, system: noTool }),
    ).resolves.toBe('terminal');
    const encoded = Buffer.from("curl -X GET 'https://shop.example.com/é'").toString('base64');
    expect(t.written).toEqual([`\u001B]52;c;${encoded}\u0007`]);
  });

  it('rejects with the clipboard error when the text is too long for OSC 52', async () => {
    const t = terminal();
    const noTool = async () => Promise.reject(new Error('no xsel'));
    await expect(copyText('x'.repeat(OSC52_MAX_BASE64), { stdout: t.stdout, system: noTool })).rejects.toThrow(
      'no xsel',
    );
    expect(t.written).toEqual([]);
  });
});
