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
 * The links the parcels this run wrote (inserted or updated) must have: `$1` the country, `$2` the
 * run. `byKey`: each staged parcel looks its live row up (a night's few); the planner, not knowing
 * the run's id, otherwise took the run's parcels for one and read the staging table for each.
 */
function wantedLinksSql(links: ParcelLinkSql, byKey: boolean): string {
  const written = byKey
    ? 'CROSS JOIN LATERAL (SELECT 1 FROM parcel p WHERE p.country = $1 AND p.parcel_id = s.parcel_id AND p.published_run_id = $2 OFFSET 0) written'
    : 'JOIN parcel p ON p.country = $1 AND p.parcel_id = s.parcel_id AND p.published_run_id = $2';
  return `SELECT s.parcel_id, ${links.cadastreId} AS cadastre_id, ${links.isMainParcel} AS is_main_parcel
    FROM ${links.stagingTable} s ${written} ${links.expand ?? ''}`;
}

/**
 * Brings `parcel_property` up to date after the parcel merge, the same way in both countries:
 * links change only when their parcel's row hash changes, so only the links of parcels this run
 * inserted or updated, and of parcels that left the register, are looked at. Of those, only the
 * links that differ are written: a parcel whose row changed in other columns (a date, a version:
 * most of a night's updates) keeps its links untouched, so the counts are the links that changed.
 */
export async function relinkChangedParcels(
  client: pg.PoolClient,
  links: ParcelLinkSql,
  scope: PublishScope,
  runId: string,
  /** On a night that staged only the changed parcels: the table of the keys it removed (collectRemovedKeys). */
  removedKeys?: string,
): Promise<ChangeCounts> {
  const params = [scope.country, runId];
  const insertWanted = (onlyNew: boolean, byKey = false) => client.query(
    `INSERT INTO parcel_property (country, parcel_id, cadastre_id, is_main_parcel)
     SELECT $1, wanted.* FROM (${wantedLinksSql(links, byKey)}) wanted
     ${onlyNew ? 'WHERE NOT EXISTS (SELECT 1 FROM parcel_property link WHERE link.country = $1 AND link.parcel_id = wanted.parcel_id AND link.cadastre_id = wanted.cadastre_id)' : ''}`,
    params,
  );
  // A country's first load writes every link, with nothing to compare (into an empty table, the
  // cadastre index is built once afterwards, as the parcels' GiST is). It joins the parcels this
  // run wrote, which the statistics do not know: hash joins.
  if (await isEmpty(client, 'parcel_property', scope.country)) {
    const insert = () => withHashJoins(client, () => insertWanted(false));
    const added = (await isEmpty(client, 'parcel_property')) ? await withIndexesBuiltAfter(client, 'parcel_property', insert) : await insert();
    return { inserted: added.rowCount ?? 0, updated: 0, deleted: 0 };
  }
  // A link is stale when its parcel is gone or this run wrote it, and then kept only where the
  // parcel's staged row (s) still gives it.
  const stale = `NOT EXISTS (SELECT 1 FROM parcel p WHERE p.country = link.country AND p.parcel_id = link.parcel_id AND p.published_run_id <> $2)`;
  const givenBy = (staged: string) =>
    `EXISTS (SELECT 1 FROM ${staged} ${links.expand ?? ''} WHERE s.parcel_id = link.parcel_id AND (${links.cadastreId}) = link.cadastre_id AND (${links.isMainParcel}) = link.is_main_parcel)`;
  let deleted: number;
  let added: pg.QueryResult;
  if (removedKeys) {
    // A night: only the staged and removed parcels can have stale links, each found by its key
    // (0.2–0.3 s a night at 0.05 x for the anti-join over every Swedish link), and a staged link
    // checked on its own staged row. The new links are probed by key too: the planner otherwise
    // hashed all the country's links for a few thousand (0.35 s of Sweden's night at 0.25 x).
    const ofRemoved = await withKeyLookups(client, () => client.query(
      `DELETE FROM parcel_property link USING ${removedKeys} r WHERE link.country = $1 AND link.parcel_id = r.parcel_id AND ${stale}`,
      params,
    ));
    const ofStaged = await withKeyLookups(client, () => client.query(
      `DELETE FROM parcel_property link USING ${links.stagingTable} s
       WHERE link.country = $1 AND link.parcel_id = s.parcel_id AND ${stale} AND NOT ${givenBy('(SELECT) one')}`,
      params,
    ));
    deleted = (ofRemoved.rowCount ?? 0) + (ofStaged.rowCount ?? 0);
    added = await withKeyLookups(client, () => insertWanted(true, true));
  } else {
    // A snapshot: every link of a parcel gone or written by this run, hash anti-joins over all of them.
    const removed = await withHashJoins(client, () => client.query(
      `DELETE FROM parcel_property link WHERE link.country = $1 AND ${stale} AND NOT ${givenBy(`${links.stagingTable} s`)}`,
      params,
    ));
    deleted = removed.rowCount ?? 0;
    added = await withHashJoins(client, () => insertWanted(true));
  }
  // A link whose main-parcel flag changed was deleted above, so its key was free for the insert.
  return { inserted: added.rowCount ?? 0, updated: 0, deleted };
}
