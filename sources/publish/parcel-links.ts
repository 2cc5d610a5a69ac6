import type pg from 'pg';
import type { ChangeCounts, PublishScope } from '../source-adapter.js';
import { isEmpty, withIndexesBuiltAfter } from './indexes-after.js';
import { withHashJoins, withKeyLookups } from './merge-table.js';

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
export async function relinkChangedParcels(
  client: pg.PoolClient,
  links: ParcelLinkSql,
  scope: PublishScope,
  runId: string,
  /** On a night that staged only the changed parcels: the table of the keys it removed (collectRemovedKeys). */
  removedKeys?: string,
): Promise<ChangeCounts> {
  const stale = `NOT EXISTS (SELECT 1 FROM parcel p WHERE p.country = link.country AND p.parcel_id = link.parcel_id AND p.published_run_id <> $2)`;
  // A snapshot: every link of a parcel gone or written by this run, a hash anti-join over all of
  // them (withHashJoins: it joins the parcels this run wrote). A night: only the staged and
  // removed parcels can have either, found by key (0.2–0.3 s a night at 0.05 x for the
  // anti-join over every Swedish link).
  const removed = removedKeys
    ? await withKeyLookups(client, () => client.query(
      `DELETE FROM parcel_property link
       USING (SELECT parcel_id FROM ${links.stagingTable} UNION SELECT parcel_id FROM ${removedKeys}) candidate
       WHERE link.country = $1 AND link.parcel_id = candidate.parcel_id AND ${stale}`,
      [scope.country, runId],
    ))
    : await withHashJoins(client, () => client.query(`DELETE FROM parcel_property link WHERE link.country = $1 AND ${stale}`, [scope.country, runId]));
  // It joins the parcels this run wrote: hash joins.
  const insert = () => withHashJoins(client, () =>
    client.query(
      `INSERT INTO parcel_property (country, parcel_id, cadastre_id, is_main_parcel)
       SELECT $1, s.parcel_id, ${links.cadastreId}, ${links.isMainParcel}
       FROM ${links.stagingTable} s
       JOIN parcel p ON p.country = $1 AND p.parcel_id = s.parcel_id AND p.published_run_id = $2
       ${links.expand ?? ''}`,
      [scope.country, runId],
    ));
  // A first load writes every link: the cadastre index is built once afterwards, as the parcels' GiST is.
  const added = (await isEmpty(client, 'parcel_property')) ? await withIndexesBuiltAfter(client, 'parcel_property', insert) : await insert();
  return { inserted: added.rowCount ?? 0, updated: 0, deleted: removed.rowCount ?? 0 };
}
