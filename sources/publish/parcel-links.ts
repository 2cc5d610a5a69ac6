import type pg from 'pg';
import type { ChangeCounts, PublishScope } from '../source-adapter.js';
import { isEmpty, withIndexesBuiltAfter } from './indexes-after.js';

/** How a country's staged parcels (`s`) name the properties they belong to, as SQL expressions. */
export interface ParcelLinkSql {
  stagingTable: string;
  /** The linked property's cadastreId, e.g. `s.cadastre_id`. */
  cadastreId: string;
  /** Whether the parcel is that property's main parcel (for the coordinate lookup). */
  isMainParcel: string;
  /** A join that turns one staged parcel into several links, e.g. `CROSS JOIN LATERAL unnest(s.units) AS unit`. */
  expand?: string;
}

/**
 * Rewrites `parcel_property` after the parcel merge, the same way in both countries: links
 * change only when their parcel's row hash changes, so only the links of parcels this run
 * inserted or updated are rewritten, and the links of parcels that left the register go.
 */
export async function relinkChangedParcels(client: pg.PoolClient, links: ParcelLinkSql, scope: PublishScope, runId: string): Promise<ChangeCounts> {
  const removed = await client.query(
    `DELETE FROM parcel_property link
     WHERE link.country = $1
       AND NOT EXISTS (SELECT 1 FROM parcel p WHERE p.country = link.country AND p.parcel_id = link.parcel_id AND p.published_run_id <> $2)`,
    [scope.country, runId],
  );
  const insert = () =>
    client.query(
      `INSERT INTO parcel_property (country, parcel_id, cadastre_id, is_main_parcel)
       SELECT $1, s.parcel_id, ${links.cadastreId}, ${links.isMainParcel}
       FROM ${links.stagingTable} s
       JOIN parcel p ON p.country = $1 AND p.parcel_id = s.parcel_id AND p.published_run_id = $2
       ${links.expand ?? ''}`,
      [scope.country, runId],
    );
  // A first load writes every link: the cadastre index is built once afterwards, as the parcels' GiST is.
  const added = (await isEmpty(client, 'parcel_property')) ? await withIndexesBuiltAfter(client, 'parcel_property', insert) : await insert();
  return { inserted: added.rowCount ?? 0, updated: 0, deleted: removed.rowCount ?? 0 };
}
