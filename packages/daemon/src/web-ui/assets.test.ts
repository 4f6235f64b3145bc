import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { webUiOnFirstUse } from './assets.js';

const pack = (files: unknown) => JSON.stringify({ version: '1', files });
const index = { path: '/', type: 'text/html', text: '<p>hi</p>', gzip: Buffer.from('gz').toString('base64') };

describe('webUiOnFirstUse', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tapline-web-ui-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the pack on the first call, not before, and keeps it', () => {
    const file = join(dir, 'web-ui.json');
    const failures: unknown[] = [];
    const ui = webUiOnFirstUse(file, (error) => failures.push(error));
    // Written after: nothing was read when the source was made.
    writeFileSync(file, pack([index]));
    const first = ui();
    expect(first?.files.get('/')?.body.toString()).toBe('<p>hi</p>');
    rmSync(file);
    expect(ui()).toBe(first);
    expect(failures).toEqual([]);
  });

  it('reports a run of failed reads once, and reads the pack again at the next call', () => {
    const file = join(dir, 'web-ui.json');
    writeFileSync(file, pack([{ path: '/assets/a.js' }]));
    const failures: unknown[] = [];
    const ui = webUiOnFirstUse(file, (error) => failures.push(error));
    expect(ui()).toBeNull();
    expect(ui()).toBeNull();
    expect(failures).toHaveLength(1);
    expect(String(failures[0])).toContain('malformed');
    // The install finished: the next request gets the page, and keeps it.
    writeFileSync(file, pack([index]));
    const read = ui();
    expect(read?.files.get('/')?.body.toString()).toBe('<p>hi</p>');
    rmSync(file);
    expect(ui()).toBe(read);
  });
});
