import { makeAlertRule } from '@tapline/testkit/cli';
import { createColors } from 'picocolors';
import { describe, expect, it } from 'vitest';
import { alertTable, firingOf } from './alerts.js';

const RED_BOLD = '\u001b[31m\u001b[1mfiring';

describe('tapline alerts list', () => {
  it('marks firing rules in red (issue 27, "Where it shows"), pending ones in yellow, and nothing on plain output', () => {
    const rules = [
      makeAlertRule({ state: 'firing' }),
      makeAlertRule({ state: 'pending' }),
      makeAlertRule({ state: 'ok' }),
    ];
    const [, firing, pending, ok] = alertTable({ colors: createColors(true), width: 160 }, rules);
    expect(firing).toContain(RED_BOLD);
    expect(pending).toContain('\u001b[33mpending');
    expect(ok).not.toContain('\u001b[3');
    expect(alertTable({ colors: createColors(false), width: 160 }, rules).join('\n')).not.toContain('\u001b[');
  });

  it('keeps only the firing rules for the terminal UI, longest firing first', () => {
    const late = makeAlertRule({ state: 'firing', stateSince: '2026-11-21T10:05:00.000Z' });
    const early = makeAlertRule({ state: 'firing', stateSince: '2026-11-21T10:00:00.000Z' });
    expect(firingOf([late, makeAlertRule({ state: 'resolved' }), early]).map((r) => r.id)).toEqual([early.id, late.id]);
  });
});
