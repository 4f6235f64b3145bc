import type { AlertState } from '@tapline/shared';

/**
 * The alert state machine (issue 27), pure: what one evaluation does to a rule's state, given
 * whether its condition held and the time. The evaluator (evaluate.ts) does the I/O around it.
 *
 *   ok | resolved --met--> pending (firing at once without --for)
 *   pending --met, --for elapsed--> firing      pending --not met--> ok
 *   firing --not met for a whole window--> resolved   (a met evaluation restarts that count)
 *
 * A firing rule sends nothing more while it stays firing, except a reminder every `--repeat`.
 */
export interface RuleState {
  readonly state: AlertState;
  /** ISO times. */
  readonly stateSince: string;
  readonly firingSince: string | null;
  readonly clearSince: string | null;
  readonly notifiedAt: string | null;
}

export interface Timing {
  readonly forMs: number;
  readonly windowMs: number;
  readonly repeatMs: number | null;
}

/** What the step asks the outbox for: a firing or resolved message, a reminder, or nothing. */
export type Notice = 'firing' | 'resolved' | 'reminder' | null;

export interface Step {
  readonly next: RuleState;
  /** Set when the state changed: kept in the history. */
  readonly transition: { readonly from: AlertState; readonly to: AlertState } | null;
  readonly notice: Notice;
}

const since = (a: string | null, now: number) => (a === null ? 0 : now - Date.parse(a));

function move(current: RuleState, to: AlertState, at: string, changes: Partial<RuleState>, notice: Notice): Step {
  return {
    next: { ...current, ...changes, state: to, stateSince: at },
    transition: { from: current.state, to },
    notice,
  };
}

const stay = (current: RuleState, changes: Partial<RuleState> = {}, notice: Notice = null): Step => ({
  next: { ...current, ...changes },
  transition: null,
  notice,
});

export function next(current: RuleState, met: boolean, now: Date, timing: Timing): Step {
  const at = now.toISOString();
  const ms = now.getTime();
  const fire = () => move(current, 'firing', at, { firingSince: at, clearSince: null, notifiedAt: at }, 'firing');
  switch (current.state) {
    case 'ok':
    case 'resolved':
      if (!met) return stay(current);
      return timing.forMs === 0 ? fire() : move(current, 'pending', at, {}, null);
    case 'pending':
      if (!met) return move(current, 'ok', at, {}, null);
      return ms - Date.parse(current.stateSince) >= timing.forMs ? fire() : stay(current);
    case 'firing': {
      if (met) {
        const remind = timing.repeatMs !== null && since(current.notifiedAt, ms) >= timing.repeatMs;
        return remind
          ? stay(current, { clearSince: null, notifiedAt: at }, 'reminder')
          : stay(current, { clearSince: null });
      }
      const clearSince = current.clearSince ?? at;
      if (ms - Date.parse(clearSince) >= timing.windowMs)
        return move(current, 'resolved', at, { clearSince: null }, 'resolved');
      return stay(current, { clearSince });
    }
  }
}
