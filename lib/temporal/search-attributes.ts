import type { Client } from '@temporalio/client';
import { SEARCH_ATTRIBUTES } from '../../workflows/search-attributes.js';

/** Registers the pipeline's search attributes on the namespace (a no-op when they exist). */
export async function ensureSearchAttributes(client: Client, namespace: string): Promise<void> {
  const { customAttributes } = await client.connection.operatorService.listSearchAttributes({ namespace });
  const missing = SEARCH_ATTRIBUTES.filter((key) => !(key.name in (customAttributes ?? {})));
  if (!missing.length) return;
  await client.connection.operatorService.addSearchAttributes({
    namespace,
    // Enum value 2 is KEYWORD in temporal.api.enums.v1.IndexedValueType.
    searchAttributes: Object.fromEntries(missing.map((key) => [key.name, 2])),
  });
}
