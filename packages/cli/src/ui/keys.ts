/** Every screen's keys, in one place: the footer shows the short list, `?` the full one. */
export type Screen =
  'picker' | 'traffic' | 'filter' | 'record' | 'diff' | 'logs' | 'log' | 'webhooks' | 'routes' | 'alerts' | 'help';

export interface KeyHelp {
  readonly keys: string;
  readonly does: string;
}

/** A key on the key line; `drop` ranks the lesser ones (the highest goes first), none for those always shown. */
interface LineKey {
  readonly text: string;
  readonly drop?: number;
}

const key = (text: string, drop?: number): LineKey => (drop === undefined ? { text } : { text, drop });

/** The key line of each screen, in the order shown. `? help` and `q quit` (or `esc back`) always stay. */
export const FOOTER: Readonly<Record<Screen, readonly LineKey[]>> = {
  picker: [key('↑↓/jk move'), key('enter open'), key('q quit')],
  traffic: [
    key('space pause', 3),
    key('jk move', 4),
    key('/ filter', 2),
    key('enter open', 1),
    key('m mark', 5),
    key('= diff', 5),
    key('r routes', 5),
    key('a alerts', 5),
    key('l logs', 6),
    key('w webhooks', 6),
    key('? help'),
    key('q quit'),
  ],
  filter: [key('enter apply'), key('esc clear'), key('↑↓ recent filters', 1)],
  record: [
    key('tab request/response', 2),
    key('↑↓/jk scroll', 3),
    key('PgUp/PgDn page', 4),
    key('c curl', 1),
    key('r replay', 1),
    key('esc back'),
    key('q quit'),
  ],
  diff: [key('↑↓/jk scroll', 2), key('PgUp/PgDn page', 3), key('esc back'), key('q quit')],
  logs: [key('↑↓/jk move', 2), key('enter stack', 1), key('esc back'), key('q quit')],
  log: [key('↑↓/jk scroll', 1), key('esc back'), key('q quit')],
  webhooks: [key('↑↓/jk move', 2), key('d delete', 1), key('esc back'), key('q quit')],
  routes: [key('↑↓/jk move', 2), key('s sort', 1), key('enter traffic', 1), key('esc back'), key('q quit')],
  alerts: [key('↑↓/jk scroll', 1), key('esc back'), key('q quit')],
  help: [key('esc or ? close')],
};

const SEPARATOR = '  ';

/**
 * The key line of `screen` in `width` columns: the lesser keys are dropped, highest `drop` first and
 * the later of equals first, until the line fits; the ones without a rank are always shown.
 */
export function footerLine(screen: Screen, width: number): string {
  const keys = [...FOOTER[screen]];
  const length = () => keys.reduce((n, k) => n + k.text.length, 0) + SEPARATOR.length * Math.max(0, keys.length - 1);
  while (length() > width) {
    let worst = -1;
    keys.forEach((k, i) => {
      if (k.drop !== undefined && (worst < 0 || k.drop >= (keys[worst]?.drop ?? 0))) worst = i;
    });
    if (worst < 0) break;
    keys.splice(worst, 1);
  }
  return keys.map((k) => k.text).join(SEPARATOR);
}

export const HELP: readonly (readonly [string, readonly KeyHelp[]])[] = [
  [
    'Live traffic',
    [
      { keys: 'space', does: 'pause or resume following new entries' },
      { keys: '↑ ↓  j k', does: 'move the selection (leaving the top pauses)' },
      { keys: 'g  G', does: 'jump to the newest / oldest loaded entry' },
      { keys: 'PgUp PgDn', does: 'page through history; older pages load on demand' },
      { keys: '/', does: 'filter, e.g. status>=500 or method=POST and path^=/api/' },
      { keys: 'enter', does: 'open the selected record (the table pauses meanwhile)' },
      { keys: 'm  =', does: 'mark the selected entry (◆) / diff the selected entry against the mark' },
      { keys: 'r', does: 'routes: requests, errors and latency per route over the last hour' },
      { keys: 'a', does: 'the alert rules firing now (the header counts them); esc back' },
      { keys: 'l  w', does: 'core logs / webhooks of this source' },
      { keys: 'q', does: 'quit' },
    ],
  ],
  [
    'Filter prompt',
    [
      { keys: 'enter', does: 'apply (checked as you type)' },
      { keys: 'esc', does: 'clear the filter' },
      { keys: '↑ ↓', does: 'recall recent filters' },
    ],
  ],
  [
    'Record',
    [
      { keys: 'tab', does: 'switch request / response' },
      { keys: '↑ ↓ PgUp PgDn', does: 'scroll' },
      { keys: 'c', does: 'copy the curl command (shown when there is no clipboard)' },
      { keys: 'r', does: 'replay the request now; the answer shows beside the recorded one' },
      { keys: 'esc', does: 'back to the table' },
    ],
  ],
  [
    'Routes',
    [
      { keys: 's', does: 'sort by count, p95, p99 or error rate (in turn)' },
      { keys: 'enter', does: 'the traffic of the selected route and method (a route= filter)' },
      { keys: 'esc', does: 'back to the traffic' },
    ],
  ],
  [
    'Core logs and webhooks',
    [
      { keys: 'enter', does: 'show the stack of a core log' },
      { keys: 'd', does: 'delete a webhook (asks first)' },
      { keys: 'esc', does: 'back' },
    ],
  ],
];
