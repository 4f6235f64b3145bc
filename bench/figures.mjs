// What a scenario returns: figures, each with every round's value, their median, and for a figure
// measured against floors in the same run, the ratio to each floor per round and its median.
// Shape (results.json): { unit, rounds: number[], median, ratio?: { [floor]: { rounds, median } } }.

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Four significant digits: rounds are noisy well before that. */
const tidy = (n) => (Number.isFinite(n) && n !== 0 ? Number(n.toPrecision(4)) : n);

export function figure(unit, rounds) {
  return { unit, rounds: rounds.map(tidy), median: tidy(median(rounds)) };
}

/** `rounds[i]` over `floors[name][i]`: the ratio is taken within each round, never across them. */
export function versus(unit, rounds, floors) {
  const ratio = {};
  for (const [name, floorRounds] of Object.entries(floors)) {
    const within = rounds.map((value, i) => value / floorRounds[i]);
    ratio[name] = { rounds: within.map(tidy), median: tidy(median(within)) };
  }
  return { ...figure(unit, rounds), ratio };
}

/**
 * Runs `steps` (`[name, async (round) => value]`) in order, `count` times: floor, tapline, floor,
 * tapline... so that the machine's drift (±25% over a minute on these shared machines) hits every
 * contender of a round alike. Returns each step's values by name, one per round.
 */
export async function interleave(count, steps, log, { alternate = false } = {}) {
  const values = Object.fromEntries(steps.map(([name]) => [name, []]));
  for (let round = 1; round <= count; round++) {
    // `alternate`: every second round runs the steps in reverse order, so that no side of a
    // comparison always follows the same step (and whatever that step leaves the machine doing).
    const order = alternate && round % 2 === 0 ? [...steps].reverse() : steps;
    for (const [name, step] of order) values[name].push(await step(round));
    log(`round ${round}: ${steps.map(([name]) => `${name} ${brief(values[name].at(-1))}`).join(', ')}`);
  }
  return values;
}

const brief = (value) =>
  typeof value === 'number'
    ? String(tidy(value))
    : Object.entries(value)
        .map(([k, v]) => `${k} ${tidy(v)}`)
        .join(' ');

/** One field of every round's step result: `pluck(values.tapline, 'perSecond')`. */
export const pluck = (rounds, key) => rounds.map((round) => round[key]);
