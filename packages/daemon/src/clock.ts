import { v7 as uuidv7 } from 'uuid';

// Time and ids for every repository. Imports nothing of ours, so that anything (auth among
// them) can use it without depending on deps.ts, which names the services it wires.

export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

/** UUIDv7: time-ordered, and monotonic within a millisecond, so newest-first order is stable. */
export const newId = (): string => uuidv7();

export const isoNow = (clock: Clock): string => clock.now().toISOString();
