import type { TrafficSource } from '@tapline/shared';
import { openTestDatabase } from '@tapline/testkit/daemon';
import { afterEach, beforeEach } from 'vitest';
import { createUser } from '../auth/users.js';
import { systemClock } from '../clock.js';
import type { OpenedDatabase } from '../db/open.js';
import { createTrafficBus, type IngestHook, type TrafficBus } from '../stream/bus.js';
import { createTrafficSource } from '../traffic-sources/repo.js';
import { createIngest, type Ingest } from './ingest.js';

/** An ingest on a test database as the daemon makes one, with the bus and hooks a test gives. */
export const ingestOn = (opened: OpenedDatabase, options: { bus?: TrafficBus; hooks?: IngestHook[] } = {}): Ingest =>
  createIngest({
    db: opened.db,
    dialect: opened.dialect,
    clock: systemClock,
    bus: options.bus ?? createTrafficBus(),
    hooks: options.hooks ?? [],
  });

/** A test database opened before each test, with one user's source, closed after it. */
export function eachDatabaseWithSource(): () => { opened: OpenedDatabase; source: TrafficSource } {
  let current: { opened: OpenedDatabase; source: TrafficSource } | undefined;
  beforeEach(async () => {
    const opened = await openTestDatabase();
    const user = await createUser(opened.db, systemClock, { email: 'owner@example.com' });
    current = {
      opened,
      source: await createTrafficSource(opened.db, systemClock, user.id, {
        name: 's',
        trafficDomain: 'shop.example.com',
      }),
    };
  });
  afterEach(async () => {
    const closing = current;
    current = undefined;
    await closing?.opened.close();
  });
  return () => {
    if (!current) throw new Error('no database outside a test');
    return current;
  };
}
