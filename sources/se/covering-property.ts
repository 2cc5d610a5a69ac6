import type pg from 'pg';

/**
 * Swedish addresses and buildings carry no property reference: each is linked to the property
 * whose parcel covers it, as the coordinate lookup resolves a point (ST_Covers over the GiST
 * index; the smallest parcel, then the lowest parcel id, then the property the parcel is the
 * main area of). The link is part of the row's hash, so a row whose property changed is
 * rewritten even when its own attributes did not.
 */

/** SQL for the cadastreId of the property covering `pointSql` (a WGS84 point expression). */
export const coveringCadastreSql = (pointSql: string) => `(
  SELECT pp.cadastre_id
  FROM parcel p JOIN parcel_property pp ON pp.country = p.country AND pp.parcel_id = p.parcel_id
  WHERE p.country = 'SE' AND ST_Covers(p.geom, ${pointSql})
  ORDER BY p.area_m2, p.parcel_id, pp.is_main_parcel DESC, pp.cadastre_id
  LIMIT 1)`;

/**
 * Copies `source` into a temporary table `name` (dropped at commit) with each row's
 * `cadastre_id` and a `row_hash` that covers the link; returns the table's name for mergeTable.
 */
export async function linkedSnapshot(client: pg.PoolClient, source: string, name: string, keyColumn: string, pointSql: string): Promise<string> {
  await client.query(
    `CREATE TEMP TABLE ${name} ON COMMIT DROP AS
     SELECT linked.*, md5(linked.row_hash::text || coalesce(linked.cadastre_id, ''))::uuid AS linked_row_hash
     FROM (SELECT s.*, ${coveringCadastreSql(pointSql)} AS cadastre_id FROM ${source} s) linked`,
  );
  await client.query(`ALTER TABLE ${name} DROP COLUMN row_hash`);
  await client.query(`ALTER TABLE ${name} RENAME COLUMN linked_row_hash TO row_hash`);
  await client.query(`CREATE INDEX ON ${name} (${keyColumn})`);
  await client.query(`ANALYZE ${name}`);
  return name;
}
