import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { TrafficTable } from './components/TrafficTable.js';
import { PaletteContext } from './palette.js';
import { colorLevel, withStyling } from './terminal.js';
import { makeEntry } from '@tapline/testkit/cli';

const INVERSE = '\u001B[7m';
// Any foreground colour: 30-37, 90-97, 38;5;n or 38;2;r;g;b.
const FOREGROUND = /\u001B\[(3[0-8]|9[0-7])[;m]/;

function table(color: boolean): string {
  const entries = [makeEntry({ status: 503 }), makeEntry({ status: 200 })];
  const view = render(
    <PaletteContext.Provider value={{ color }}>
      <TrafficTable entries={entries} selected={1} width={100} rows={3} emptyText="" />
    </PaletteContext.Provider>,
  );
  const frame = view.lastFrame() ?? '';
  view.unmount();
  return frame;
}

describe('styling in the UI', () => {
  it('colours statuses and levels and shows the selection in inverse video, CI or not', async () => {
    const frame = await withStyling({ CI: 'true', TERM: 'xterm-256color' }, async () => table(true));
    expect(frame).toMatch(FOREGROUND);
    expect(frame.split('\n')[2]).toContain(INVERSE);
  });

  it('NO_COLOR drops every colour but keeps inverse video on the selected row', async () => {
    const frame = await withStyling({ NO_COLOR: '1' }, async () => table(false));
    expect(frame).not.toMatch(FOREGROUND);
    const lines = frame.split('\n');
    expect(lines[2]).toContain(INVERSE);
    expect(lines[1]).not.toContain(INVERSE);
  });

  it('takes the colour depth from TERM and COLORTERM, never from CI', () => {
    expect(colorLevel({ CI: 'true', TERM: 'xterm' })).toBe(1);
    expect(colorLevel({ TERM: 'tmux-256color' })).toBe(2);
    expect(colorLevel({ COLORTERM: 'truecolor', TERM: 'xterm' })).toBe(3);
  });
});
