/** Every screen's keys, in one place: the footer shows the short list, `?` the full one. */
export type Screen = 'picker' | 'traffic' | 'filter' | 'record' | 'diff' | 'logs' | 'log' | 'webhooks' | 'help';

export interface KeyHelp {
  readonly keys: string;
  readonly does: string;
}

export const FOOTER: Readonly<Record<Screen, string>> = {
  picker: '↑↓/jk move  enter open  q quit',
  traffic: 'space pause  jk move  / filter  enter open  m mark  = diff  l logs  w webhooks  ? help  q quit',
  filter: 'enter apply  esc clear  ↑↓ recent filters',
  record: 'tab request/response  ↑↓/jk scroll  PgUp/PgDn page  c curl  r replay  esc back  q quit',
  diff: '↑↓/jk scroll  PgUp/PgDn page  esc back  q quit',
  logs: '↑↓/jk move  enter stack  esc back  q quit',
  log: '↑↓/jk scroll  esc back  q quit',
  webhooks: '↑↓/jk move  d delete  esc back  q quit',
  help: 'esc or ? close',
};

export const HELP: readonly (readonly [string, readonly KeyHelp[]])[] = [
  [
    'Live traffic',
    [
      { keys: 'space', does: 'pause or resume following new entries' },
      { keys: '↑ ↓  j k', does: 'move the selection (leaving the top pauses)' },
      { keys: 'g  G', does: 'jump to the newest / oldest loaded entry' },
      { keys: 'PgUp PgDn', does: 'page through history; older pages load on demand' },
      { keys: '/', does: 'filter, e.g. status>=500 or method=POST and path^=/api/' },
      { keys: 'enter', does: 'open the selected record' },
      { keys: 'm  =', does: 'mark the selected entry / diff the selected entry against the mark' },
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
    'Core logs and webhooks',
    [
      { keys: 'enter', does: 'show the stack of a core log' },
      { keys: 'd', does: 'delete a webhook (asks first)' },
      { keys: 'esc', does: 'back' },
    ],
  ],
];
