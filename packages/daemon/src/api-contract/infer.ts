import type { ApiInferQuery, OpenApiDocument } from '@tapline/shared';
import type { Store } from '../db/open.js';
import { ContractEvidence } from './document.js';
import { eachExchange } from './records.js';

/** `GET /api-contract/:id/openapi`: the source's stored exchanges in the window, as one OpenAPI 3.1 document. */
export async function inferContract(
  store: Store,
  source: { id: string; name: string },
  query: ApiInferQuery,
  now: number,
): Promise<OpenApiDocument> {
  const evidence = new ContractEvidence();
  for await (const record of eachExchange(store, source.id, query, now)) evidence.add(record);
  return evidence.document(`${source.name} (inferred by Tapline)`);
}
