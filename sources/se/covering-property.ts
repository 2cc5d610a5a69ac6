import type pg from 'pg';
import type { ChangeCounts, PublishScope } from '../source-adapter.js';
import { polygonCoversPointSql } from '../../lib/point-probe-sql.js';
import { scopeFilter, withHashJoins, withKeyLookups } from '../publish/merge-table.js';
import type { ParcelLinkSql } from '../publish/parcel-links.js';

/**
 * Swedish addresses and buildings carry no property reference: each is linked to the property
 * whose parcel covers it, as the coordinate lookup resolves a point (ST_Covers over the GiST
 * index; the smallest parcel, then the lowest parcel id, then the property the parcel is the
 * main area of).
 *
 * The link is kept out of the row hash: it is derived from another register. It is kept true
 * from both sides: a publish of addresses or buildings links the rows it writes; a publish of
 * the cadastre re-links the rows under every parcel it changes, as the parcel was and as it is,
 * so a property change reaches addresses and buildings on a night their own files are
 * unchanged. Neither side re-checks rows nothing changed under: on a changed night that check
 * was a point-in-parcel test of every address (133,424 at 0.05 x national) and building.
 */

/** Which of the parcels covering a point links it: the smallest, then the lowest parcel id, then the property it is the main area of. */
const COVERING_ORDER = 'p.area_m2, p.parcel_id, pp.is_main_parcel DESC, pp.cadastre_id';

/**
 * SQL for the parcel and property covering `pointSql` (a WGS84 point expression): a subquery
 * yielding at most one row with `cadastre_id` and the `extra` columns of parcel `p`.
 */
export const coveringParcelSql = (pointSql: string, extra = '') => `(
  SELECT pp.cadastre_id${extra ? `, ${extra}` : ''}
  FROM parcel p JOIN parcel_property pp ON pp.country = p.country AND pp.parcel_id = p.parcel_id
  WHERE p.country = 'SE' AND ${polygonCoversPointSql('p.geom', pointSql)}
  ORDER BY ${COVERING_ORDER}
  LIMIT 1)`;

/**
 * SQL for the covering property of every row of `table` that a parcel covers (rows `r`
 * matching `rowFilter`, located by the point expression `pointOfRow` over `r`, which a GiST
 * index must hold, with `rowFilter` as its predicate if partial): a `row_id` (the row's ctid)
 * and `cadastre_id`, plus the `extra` columns of parcel `p`; a row on no parcel is not in it.
 * The same choice as coveringParcelSql, made from the other side: each parcel looks up the rows
 * under it in the rows' index. A point's probe of the parcels'
 * index cost 45 µs at 0.05 × national (the index compared each entry's box with the point's,
 * computed anew for every entry; about a quarter less since the probe's box,
 * polygonCoversPointSql), a parcel's probe of the points' index 16 µs: all 366,789 Swedish
 * buildings were linked in 6.8 s this way against about 17.6 s point by point.
 */
export const coveredRowsSql = (table: string, pointOfRow: string, rowFilter: string, extra = '') => `
  SELECT DISTINCT ON (under.row_id) under.row_id, pp.cadastre_id${extra ? `, ${extra}` : ''}
  FROM parcel p JOIN parcel_property pp ON pp.country = p.country AND pp.parcel_id = p.parcel_id
  -- OFFSET 0 keeps the planner from turning it round into a probe of the parcels for every row,
  -- or, with its estimates, into a join of every row with every parcel.
  CROSS JOIN LATERAL (SELECT r.ctid AS row_id FROM ${table} r WHERE ${rowFilter} AND ST_Covers(p.geom, ${pointOfRow}) OFFSET 0) under
  WHERE p.country = 'SE'
  ORDER BY under.row_id, ${COVERING_ORDER}`;

/** SQL for the cadastreId of the property covering `pointSql` (a WGS84 point expression). */
export const coveringCadastreSql = (pointSql: string) => coveringParcelSql(pointSql);

/** The live Swedish tables linked this way, and the point each is located by. */
const LINKED = { address: 'geom', building: 'location' } as const;
export type LinkedTable = keyof typeof LINKED;

/**
 * Re-links the rows whose link differs: those of `rowsTable` (their ctids, in a `row_id`
 * column), each probing the parcels, or every Swedish row, from the parcels (coveredRowsSql).
 * The rows whose link differs, with their new link, are kept in `relink_changed` first, and the
 * update then joins them by ctid: written as one update, each row's probe ran twice for every row
 * it changed (in the join's condition and again in the SET: 35,441 of 111,586 buildings on a
 * night that changed a fifth of the parcels at 0.05 × national).
 */
async function relink(client: pg.PoolClient, table: LinkedTable, rowsTable?: string): Promise<number> {
  const linked = rowsTable
    ? `SELECT source.ctid AS row_id, source.cadastre_id AS was, ${coveringCadastreSql(`source.${LINKED[table]}`)} AS cadastre_id
       FROM ${table} source WHERE source.country = 'SE' AND source.ctid = ANY (ARRAY(SELECT row_id FROM ${rowsTable}))
       OFFSET 0`
    : `SELECT source.ctid AS row_id, source.cadastre_id AS was, c.cadastre_id
       FROM ${table} source LEFT JOIN pg_temp.relink_covered c ON c.row_id = source.ctid
       WHERE source.country = 'SE'`;
  if (!rowsTable) {
    await client.query(`DROP TABLE IF EXISTS pg_temp.relink_covered`);
    await client.query(`CREATE TEMP TABLE relink_covered ON COMMIT DROP AS ${coveredRowsSql(table, `r.${LINKED[table]}`, `r.country = 'SE'`)}`);
    await client.query(`ANALYZE pg_temp.relink_covered`);
  }
  await client.query(`DROP TABLE IF EXISTS pg_temp.relink_changed`);
  const find = () => client.query(`CREATE TEMP TABLE relink_changed ON COMMIT DROP AS SELECT row_id, cadastre_id FROM (${linked}) linked WHERE was IS DISTINCT FROM cadastre_id`);
  // Every row: the rows' join with their links is of the whole table, by ctid.
  await (rowsTable ? find() : withHashJoins(client, find));
  await client.query(`ANALYZE pg_temp.relink_changed`);
  // By a TID scan: an update joined to its rows by ctid otherwise reads the whole table.
  const result = await client.query(
    `UPDATE ${table} AS live SET cadastre_id = changed.cadastre_id, updated_at = now()
     FROM pg_temp.relink_changed changed
     WHERE live.ctid = ANY (ARRAY(SELECT row_id FROM pg_temp.relink_changed)) AND live.ctid = changed.row_id`,
  );
  return result.rowCount ?? 0;
}

/**
 * What puts a staged parcel (`s`) in the covering order (COVERING_ORDER) as the merge will
 * write it, as SQL expressions: its area in square metres, and its link as the parcel links are
 * written (ParcelLinkSql). Its geometry and parcel id are the staged columns.
 */
export type CoveringPlaceSql = Pick<ParcelLinkSql, 'cadastreId' | 'isMainParcel'> & { areaM2: string };

/**
 * A staged parcel (`s`) whose live row (`live`) covers the same points, with the same area
 * and the same one link: for every point, the parcels covering it and their order stay as
 * they were, so no row under it changes its link however the rest of its row changed
 * (a date, a version). The geometry is compared exactly (PostGIS `=`: the same coordinates
 * in the same order). The link first, in one probe of its key: the area may take a
 * reprojection.
 */
const samePlaceSql = (place: CoveringPlaceSql) => `(
  (SELECT count(*) = 1 AND bool_and(pp.cadastre_id = ${place.cadastreId} AND pp.is_main_parcel = (${place.isMainParcel}))
   FROM parcel_property pp WHERE pp.country = live.country AND pp.parcel_id = live.parcel_id)
  AND live.geom = s.geom AND live.area_m2 = ${place.areaM2})`;

/**
 * Before a cadastre merge: the parcels in scope that the snapshot changes or removes, as they
 * are now, copied into the temporary table `se_changed_parcel`. A row on a removed or shrunk
 * parcel is under nothing the merge writes, yet its link goes stale. On an increment the
 * removed parcels are those of `removedKeys` (StagingContext), not every parcel staging lacks.
 *
 * On an increment, a changed parcel that stays in its place (samePlaceSql) is kept apart, in
 * `same_place`, and re-links nothing: in the benchmark's changed night about half of the changed
 * Swedish properties changed only their other attributes (sample/night.ts), and the rows under
 * them were read and probed again for nothing (docs/scaling.md). A whole snapshot (a first load,
 * a forced run, a regional extract) re-links under every changed parcel, as before: the check
 * was measured on nights' few changes only, not on a snapshot that may change a large share.
 */
export async function collectReplacedParcels(client: pg.PoolClient, stagingTable: string, scope: PublishScope, place: CoveringPlaceSql, removedKeys?: string): Promise<void> {
  const filter = scopeFilter('live', scope, 1);
  const removed = removedKeys
    ? `SELECT live.parcel_id, live.geom, false FROM parcel live JOIN ${removedKeys} r ON r.parcel_id = live.parcel_id WHERE ${filter.sql}`
    : `SELECT live.parcel_id, live.geom, false FROM parcel live
       WHERE ${filter.sql} AND NOT EXISTS (SELECT 1 FROM ${stagingTable} s WHERE s.parcel_id = live.parcel_id)`;
  await client.query(`DROP TABLE IF EXISTS se_changed_parcel`);
  // An increment's few staged and removed parcels are looked up by key: hashed, the statement
  // read all 177,669 Swedish parcels at 0.05 x national to find 3,000 of them (330 ms a night).
  await (removedKeys ? withKeyLookups : withHashJoins)(client, () =>
    client.query(
      `CREATE TEMP TABLE se_changed_parcel ON COMMIT DROP AS
       SELECT live.parcel_id, live.geom, ${removedKeys ? samePlaceSql(place) : 'false'} AS same_place
       FROM parcel live JOIN ${stagingTable} s ON s.parcel_id = live.parcel_id
       WHERE live.country = $1 AND live.row_hash <> s.row_hash
       UNION ALL
       ${removed}`,
      filter.params,
    ),
  );
}

/**
 * After the merge: adds the parcels the run wrote, as they are now, to the copy
 * collectReplacedParcels made, leaves out those that stayed in their place, and indexes it.
 * When more than FEW_CHANGED_SHARE of the country's parcels changed (a first load, a redraw)
 * the copy is dropped: every row is re-linked from the parcels instead, which then costs less
 * than finding the rows under the changed ones and probing the parcels for each.
 */
export async function changedParcels(client: pg.PoolClient, runId: string, merged: ChangeCounts): Promise<ChangedParcels> {
  // The copy holds a changed parcel twice, as it was and as it is.
  const copySize = merged.inserted + 2 * merged.updated + merged.deleted;
  if (copySize > 2 * FEW_CHANGED_SHARE * (await estimatedSwedishParcels(client))) {
    await client.query(`DROP TABLE se_changed_parcel`);
    return { copied: false };
  }
  await client.query(`INSERT INTO se_changed_parcel SELECT parcel_id, geom, false FROM parcel WHERE country = 'SE' AND published_run_id = $1`, [runId]);
  // A parcel that stayed in its place goes, as it was and as it is. Hashed: the copy is not
  // analyzed, and as a nested loop (an anti-join of the insert above) it read the copy once per
  // parcel written, 6.0 s of a night at 0.25 x national.
  await withHashJoins(client, () => client.query(`DELETE FROM se_changed_parcel c USING se_changed_parcel kept WHERE kept.same_place AND kept.parcel_id = c.parcel_id`));
  await client.query(`CREATE INDEX ON se_changed_parcel USING gist (geom)`);
  await client.query(`ANALYZE se_changed_parcel`);
  return { copied: true };
}

/** The planner's count of the Swedish parcels: counted, they took 28 ms at 0.05 × national, half a second at national size. */
export async function estimatedSwedishParcels(client: pg.PoolClient): Promise<number> {
  const explained = await client.query<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(`EXPLAIN (FORMAT JSON) SELECT 1 FROM parcel WHERE country = 'SE'`);
  return explained.rows[0]['QUERY PLAN'][0].Plan['Plan Rows'];
}

/** Whether the parcels a publish changed were copied into `se_changed_parcel`. */
export interface ChangedParcels {
  copied: boolean;
}

/**
 * Above this share of the country's parcels changed, no copy is kept (see changedParcels): about
 * where the two ways cost the same. Measured on one store at 0.05 × national, buildings and
 * addresses together, the two ways in turn, twice: the rows under a random 5, 10, 20 or 30 % of
 * the parcels (each in the copy twice) took 2.6, 4.4-6.2, 8.9-10 and 13.6-15.2 s; every row
 * from the parcels 11 to 18 s at any share. Both grow with the register, so the share holds at
 * national size, where the earlier fixed 100,000 parcels (2.8 % of a national cadastre) sent an
 * ordinary night to re-link all 10 M rows.
 */
const FEW_CHANGED_SHARE = 0.3;

/**
 * After a cadastre publish: re-links the rows on parcels this run changed (old and new
 * geometries) and the rows whose property is gone; or, when more than FEW_CHANGED_SHARE of the
 * parcels changed, every row whose link differs, found from the parcels (coveredRowsSql). A row
 * without a link gains one only where a parcel now covers it, and every parcel the run wrote is
 * among the changed ones: the rows that had none are not read again (real buildings outside the
 * sample's parcels were 576 reads a night of a test's 600).
 *
 * The two are found separately and united, so that each gets its own plan: the properties gone
 * (`goneProperties`, those an increment left without areas; on a whole snapshot by an anti-join
 * of every row), and a spatial join from the changed parcels through the rows' GiST index
 * (the Swedish addresses' is partial). Measured at 0.05 × national with 2 % of parcels changed:
 * finding the 8,259 buildings took 10.8 s as one condition ORed per row, the whole update 1.4 s
 * united; the 2,787 addresses 2.9 s and 2.2 s, and 1.8 s probing the changed parcels once per
 * address before the addresses had their index.
 *
 * The rows found are kept by their ctid and updated by a TID scan. Joined to the table by ctid
 * instead, the update read every Swedish building twice (a hash join and a sorted merge join),
 * and the anti-join over every row a third time: 2.8 s for those 8,259 buildings, 0.6 s now,
 * and every night proportional to the register rather than to the change.
 */
export async function relinkAfterCadastre(client: pg.PoolClient, table: LinkedTable, changed: ChangedParcels, goneProperties?: string): Promise<ChangeCounts> {
  if (!changed.copied) return { inserted: 0, updated: await relink(client, table), deleted: 0 };
  const point = `candidate.${LINKED[table]}`;
  const gone = goneProperties
    ? `SELECT candidate.ctid AS row_id FROM ${table} candidate
       WHERE candidate.country = 'SE' AND candidate.cadastre_id IN (SELECT cadastre_id FROM ${goneProperties})`
    : `SELECT candidate.ctid AS row_id FROM ${table} candidate
       WHERE candidate.country = 'SE' AND candidate.cadastre_id IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM parcel_property pp WHERE pp.country = 'SE' AND pp.cadastre_id = candidate.cadastre_id)`;
  await client.query(`DROP TABLE IF EXISTS pg_temp.relink_row`);
  await client.query(
    `CREATE TEMP TABLE relink_row ON COMMIT DROP AS
     SELECT DISTINCT row_id FROM (
       ${gone}
       UNION ALL
       -- From each changed parcel (at most FEW_CHANGED_SHARE of them) into the rows' GiST index; OFFSET 0
       -- keeps the planner from turning it round into a probe of the parcels for every row.
       SELECT under.row_id FROM se_changed_parcel c
       CROSS JOIN LATERAL (SELECT candidate.ctid AS row_id FROM ${table} candidate WHERE candidate.country = 'SE' AND ST_Covers(c.geom, ${point}) OFFSET 0) under
     ) found`,
  );
  return { inserted: 0, updated: await relink(client, table, 'pg_temp.relink_row'), deleted: 0 };
}
