import type { TrafficSource } from '@tapline/shared';
import { beforeEach, describe, expect, it } from 'vitest';
import type { OpenedDatabase } from '../db/open.js';
import { eachDatabaseWithSource } from '../ingest/ingest.fixture.js';
import { createRouteResolver } from './resolve.js';

describe('route resolver', () => {
  const world = eachDatabaseWithSource();
  let opened: OpenedDatabase;
  let source: TrafficSource;
  beforeEach(() => ({ opened, source } = world()));

  const groupOf = (template: string) => [{ source, records: [{ pathname: template, route: template }] }];
  const now = new Date().toISOString();
  const noRules = new Map<string, readonly string[]>();

  it("keeps each group's new routes apart while two are resolved at once (PostgreSQL's second group in flight)", async () => {
    const routes = createRouteResolver();
    const first = await routes.resolve(opened.db, groupOf('/users/{id}'), now, noRules);
    const second = await routes.resolve(opened.db, groupOf('/orders/{id}'), now, noRules);
    const user = { pathname: '/users/{id}', route: '/users/{id}' };
    const order = { pathname: '/orders/{id}', route: '/orders/{id}' };
    expect(first.routeOf(source.id, user).template).toBe('/users/{id}');
    expect(second.routeOf(source.id, order).template).toBe('/orders/{id}');
    // A group's routes are cached for later groups only once its own transaction committed.
    second.committed();
    const later = await routes.resolve(opened.db, [], now, noRules);
    expect(later.routeOf(source.id, order).template).toBe('/orders/{id}');
    expect(() => later.routeOf(source.id, user)).toThrow(/was not resolved/);
    first.committed();
    expect(later.routeOf(source.id, user).template).toBe('/users/{id}');
  });

  it('keeps the routes a group skipped as cached when another group fails and they are forgotten meanwhile', async () => {
    const routes = createRouteResolver();
    const user = { pathname: '/users/{id}', route: '/users/{id}' };
    (await routes.resolve(opened.db, groupOf('/users/{id}'), now, noRules)).committed();
    // This group finds the route cached, and makes its rows only after another group's failure.
    const inFlight = await routes.resolve(opened.db, groupOf('/users/{id}'), now, noRules);
    routes.forget();
    expect(inFlight.routeOf(source.id, user).template).toBe('/users/{id}');
  });
});
