import { describe, expect, it } from 'vitest';
import { OLDEST_POSTGRES, tooOld } from './postgres.js';

describe('the oldest PostgreSQL Tapline runs on', () => {
  it('is 12, whose plan_cache_mode the kept reads set (decisions §20.34)', () => {
    expect(OLDEST_POSTGRES).toBe(120_000);
  });

  it('refuses an older server in one line that names it and the version needed', () => {
    expect(tooOld(110_022, 'db.example:5432/tapline')).toBe(
      'PostgreSQL at db.example:5432/tapline is version 11; Tapline needs PostgreSQL 12 or later',
    );
    expect(tooOld(90_624, 'h')).toBe('PostgreSQL at h is version 9; Tapline needs PostgreSQL 12 or later');
  });

  it('takes 12 and every later version', () => {
    for (const version of [120_000, 120_017, 150_010, 170_002]) expect(tooOld(version, 'h')).toBeUndefined();
  });
});
