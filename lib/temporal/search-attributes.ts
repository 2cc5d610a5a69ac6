import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { SEARCH_ATTRIBUTES } from './search-attribute-keys.js';

/** Registers the pipeline's search attributes on the namespace (a no-op when they exist). */
export async function ensureSearchAttributes(client: Client, namespace: string): Promise<void> {
  const { customAttributes } = await client.connection.operatorService.listSearchAttributes({ namespace });
  const missing = SEARCH_ATTRIBUTES.filter((key) => !(key.name in (customAttributes ?? {})));
  if (!missing.length) return;
  await client.connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map((key) => [key.name, proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD])),
  });
}
