import { composeBody } from '@tapline/testkit';

/** Composes one record through the HTTP API, as an instrumented app would. */
export async function compose(
  url: string,
  token: string,
  sourceId: string,
  overrides: Record<string, unknown> = {},
): Promise<{ id: string }> {
  const body = composeBody(sourceId, { elapsedTime: 12, ...overrides });
  const response = await fetch(`${url}/http-traffic-record/${sourceId}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`compose answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as { id: string };
}

export async function createSource(url: string, token: string, name: string): Promise<string> {
  const response = await fetch(`${url}/traffic-source`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, trafficDomain: 'shop.example.com' }),
  });
  if (response.status !== 201)
    throw new Error(`creating a source answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}
