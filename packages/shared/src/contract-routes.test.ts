import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contract, type Endpoint } from './contract.js';
import { contractRoutes, type SchemaPart } from './contract-routes.js';

const PARTS: readonly SchemaPart[] = ['params', 'query', 'body', 'response', 'events'];

describe("the contract's routes", () => {
  it('name every endpoint of the contract, in its order', () => {
    expect(Object.keys(contractRoutes)).toEqual(Object.keys(contract));
  });

  // The daemon mounts from the routes and reads an endpoint's schemas only when `schemas` names
  // one (docs/decisions.md §20.23): a part left out would go unchecked, one too many builds for nothing.
  it.each(Object.entries(contract))('%s: `schemas` names exactly the fields that hold one', (_name, endpoint) => {
    const e: Endpoint = endpoint;
    const held = PARTS.filter((part) => e[part] instanceof z.ZodType);
    expect(e.schemas).toEqual(held);
    for (const part of PARTS) if (!held.includes(part)) expect(e[part] ?? null).toBeNull();
  });

  it('are the contract but its schemas', () => {
    for (const [name, endpoint] of Object.entries(contract)) {
      const rest = Object.fromEntries(Object.entries(endpoint).filter(([key]) => !PARTS.includes(key as SchemaPart)));
      expect(rest, name).toEqual(contractRoutes[name as keyof typeof contractRoutes]);
    }
  });
});
