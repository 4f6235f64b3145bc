import { v7 as uuidv7 } from 'uuid';

/** Time as the daemon sees it; tests pass a clock they move by hand. */
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

/** UUIDv7: time-ordered, and monotonic within a millisecond, so newest-first order is stable. */
export const newId = (): string => uuidv7();

export const isoNow = (clock: Clock): string => clock.now().toISOString();
