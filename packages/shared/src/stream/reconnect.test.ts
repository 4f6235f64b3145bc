import { describe, expect, it } from 'vitest';
import { createReconnectSchedule } from './reconnect.js';

describe('createReconnectSchedule (docs/decisions.md §9.6: 250 ms for 5 s, then up to 2 s)', () => {
  it('retries every 250 ms for the first 5 s of an outage, then backs off to 2 s', () => {
    let now = 1_000;
    const schedule = createReconnectSchedule(() => now);
    const delays: number[] = [];
    while (now < 1_000 + 12_000) {
      const delay = schedule.next();
      delays.push(delay);
      now += delay;
    }
    expect(delays.slice(0, 20)).toEqual(Array(20).fill(250));
    expect(delays.slice(20, 24)).toEqual([500, 1000, 2000, 2000]);
    expect(Math.max(...delays)).toBe(2000);
  });

  it('starts afresh after a successful connection', () => {
    let now = 0;
    const schedule = createReconnectSchedule(() => now);
    schedule.next();
    now = 6_000;
    expect(schedule.next()).toBe(500);
    schedule.reset();
    now = 7_000;
    expect(schedule.next()).toBe(250);
  });
});
