import { describe, expect, it } from 'vitest';
import { openApiDocument } from './openapi.js';

/**
 * The contract's generated output, byte for byte: the OpenAPI document with the JSON Schema of
 * every schema of the contract (json-schema.ts), as the daemon serves it but for `servers`. A change
 * to how or when the contract's schemas are built must give the same bytes (docs/decisions.md
 * §20.23); a change to the contract itself updates the file (`npx vitest run -u` on this test).
 */
describe('the OpenAPI document', () => {
  const text = () => `${JSON.stringify(openApiDocument('0.0.0-snapshot'), null, 2)}\n`;

  it('is the one recorded in openapi.snapshot.json', async () => {
    await expect(text()).toMatchFileSnapshot('./openapi.snapshot.json');
  });

  it('is the same when made again in one process', () => {
    expect(text()).toBe(text());
  });
});
