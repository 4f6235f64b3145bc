import { expect, it } from 'vitest';
import { loadOnce } from './load-once.js';

it('loads once for calls that come together and after a success, and again after a failure', async () => {
  let loads = 0;
  let fail = true;
  const load = loadOnce(async () => {
    loads += 1;
    await Promise.resolve();
    if (fail) throw new Error('ENOENT: the second file is not there');
    return loads;
  });
  const together = [load(), load()];
  await expect(Promise.all(together)).rejects.toThrow('ENOENT');
  expect(loads).toBe(1);
  fail = false;
  expect(await Promise.all([load(), load()])).toEqual([2, 2]);
  expect(await load()).toBe(2);
  expect(loads).toBe(2);
});
