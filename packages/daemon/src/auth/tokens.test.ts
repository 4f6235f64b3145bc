import { adminShutdown, databaseOutage, type DatabaseOutage, openTestDatabase } from '@tapline/testkit/daemon';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../clock.js';
import type { OpenedDatabase } from '../db/open.js';
import { createTokenService } from './tokens.js';
import { createUser } from './users.js';

/**
 * Issue 24: a daemon whose first token check came while the database was down refused every
 * valid token afterwards, until restarted: the failed load of the signing key was kept.
 */
describe('the token service while the database is down', () => {
  let opened: OpenedDatabase;
  let outage: DatabaseOutage;
  let token: string;
  beforeEach(async () => {
    opened = await openTestDatabase();
    const user = await createUser(opened.db, systemClock, { email: 'ops@example.com' });
    // Another daemon on the database made the key and the token.
    token = (await createTokenService(opened.db, systemClock).issue({ userId: user.id, scope: 'full' })).token;
    outage = databaseOutage(opened.db);
  });
  afterEach(() => opened.close());

  it('rejects rather than refuses a token it cannot check, and keeps no failed key load', async () => {
    const service = createTokenService(opened.db, systemClock);
    outage.fail(adminShutdown());
    // Rejected: no verdict on the token (a 503), where it used to be a 401 "Invalid token".
    await expect(service.verify(token)).rejects.toMatchObject({ code: '57P01' });
    await expect(service.verify(token)).rejects.toMatchObject({ code: '57P01' });
    outage.heal();
    expect(await service.verify(token)).toMatchObject({
      principal: { scope: 'full', user: { email: 'ops@example.com' } },
    });
  });

  it('rejects when the key is known but the token itself cannot be looked up', async () => {
    const service = createTokenService(opened.db, systemClock);
    expect(await service.verify(token)).toHaveProperty('principal');
    outage.fail(adminShutdown());
    await expect(service.verify(token)).rejects.toMatchObject({ code: '57P01' });
    outage.heal();
    expect(await service.verify(token)).toHaveProperty('principal');
  });
});
