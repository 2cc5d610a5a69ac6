import type pg from 'pg';
import type { ChangeCounts, MergeResult, PublishScope, StagingContext } from '../../source-adapter.js';
import { mergeTable, scopeFilter, withHashJoins, type TableMerge } from '../../publish/merge-table.js';
import type { AreaRecordKind } from './staging.js';

/**
 * Each kind the snapshot holds replaces the live rows of that kind in its scope; a kind the
 * bundle did not deliver (e.g. no land allocations tonight) leaves its live rows alone.
 */

const AREA_SQL = 'coalesce(s.area_m2, ST_Area(ST_Transform(s.geom, 3006)))';

async function kindsIn(client: pg.PoolClient, stagingTable: string): Promise<Set<AreaRecordKind>> {
  const result = await client.query<{ kind: AreaRecordKind }>(`SELECT DISTINCT record_kind AS kind FROM ${stagingTable}`);
  return new Set(result.rows.map((row) => row.kind));
}

/** Municipalities are keyed by `code` (the table predates the area sources), so they merge here rather than through mergeTable. */
async function mergeMunicipalities(client: pg.PoolClient, stagingTable: string, scope: PublishScope, runId: string): Promise<ChangeCounts> {
  const updated = await client.query(
    `UPDATE municipality live SET name = s.name, geom = s.geom, area_m2 = ${AREA_SQL}, row_hash = s.row_hash, published_run_id = $1, updated_at = now()
     FROM ${stagingTable} s
     WHERE s.record_kind = 'MUNICIPALITY' AND live.country = 'SE' AND live.code = s.record_key AND live.row_hash IS DISTINCT FROM s.row_hash`,
    [runId],
  );
  const inserted = await client.query(
    `INSERT INTO municipality (country, code, name, geom, area_m2, row_hash, published_run_id)
     SELECT 'SE', s.record_key, s.name, s.geom, ${AREA_SQL}, s.row_hash, $1 FROM ${stagingTable} s
     WHERE s.record_kind = 'MUNICIPALITY' AND NOT EXISTS (SELECT 1 FROM municipality live WHERE live.country = 'SE' AND live.code = s.record_key)`,
    [runId],
  );
  const inScope = scope.municipalities ? 'AND live.code = ANY($1::text[])' : '';
  // An anti-join right after the insert: hash joins (withHashJoins).
  const deleted = await withHashJoins(client, () => client.query(
    `DELETE FROM municipality live
     WHERE live.country = 'SE' ${inScope}
       AND NOT EXISTS (SELECT 1 FROM ${stagingTable} s WHERE s.record_kind = 'MUNICIPALITY' AND s.record_key = live.code)`,
    scope.municipalities ? [scope.municipalities] : [],
  ));
  return { inserted: inserted.rowCount ?? 0, updated: updated.rowCount ?? 0, deleted: deleted.rowCount ?? 0 };
}

/** Postal code areas share `area` with other kinds, so the merge is limited to its kind. */
async function mergePostalCodes(client: pg.PoolClient, stagingTable: string, scope: PublishScope, runId: string): Promise<ChangeCounts> {
  const updated = await client.query(
    `UPDATE area live SET name = s.name, municipality_code = s.municipality_code, row_hash = s.row_hash, published_run_id = $1, updated_at = now()
     FROM ${stagingTable} s
     WHERE s.record_kind = 'POSTAL_CODE' AND live.country = 'SE' AND live.area_kind = 'POSTAL_CODE' AND live.area_code = s.record_key AND live.row_hash <> s.row_hash`,
    [runId],
  );
  const inserted = await client.query(
    `INSERT INTO area (country, area_kind, area_code, name, municipality_code, row_hash, published_run_id)
     SELECT 'SE', 'POSTAL_CODE', s.record_key, s.name, s.municipality_code, s.row_hash, $1 FROM ${stagingTable} s
     WHERE s.record_kind = 'POSTAL_CODE'
       AND NOT EXISTS (SELECT 1 FROM area live WHERE live.country = 'SE' AND live.area_kind = 'POSTAL_CODE' AND live.area_code = s.record_key)`,
    [runId],
  );
  const filter = scopeFilter('live', scope, 1);
  // An anti-join right after the insert, which the statistics do not know of yet: on a first
  // load, 8,086 postal codes were each compared with every staged one (4.1 s at 0.05 x national).
  const deleted = await withHashJoins(client, () => client.query(
    `DELETE FROM area live
     WHERE ${filter.sql} AND live.area_kind = 'POSTAL_CODE'
       AND NOT EXISTS (SELECT 1 FROM ${stagingTable} s WHERE s.record_kind = 'POSTAL_CODE' AND s.record_key = live.area_code)`,
    filter.params,
  ));
  return { inserted: inserted.rowCount ?? 0, updated: updated.rowCount ?? 0, deleted: deleted.rowCount ?? 0 };
}

const LAND_ALLOCATION_MERGE: TableMerge = {
  liveTable: 'land_allocation',
  keyColumn: 'allocation_id',
  columns: {
    municipality_code: 's.municipality_code',
    grunnkrets_code: 'NULL',
    postal_code: 's.postal_code',
    title: 's.name',
    purpose: 's.purpose',
    status: 's.status',
    area_m2: 's.area_m2',
    price_amount: 's.price_amount',
    price_currency: 's.price_currency',
    announced_date: 's.announced_date',
    deadline_date: 's.deadline_date',
    url: 's.url',
    // PostGIS reads the GeoJSON the record carried and moves it to EPSG:4326.
    geom: 'CASE WHEN s.geojson IS NULL THEN NULL ELSE ST_Transform(ST_SetSRID(ST_GeomFromGeoJSON(s.geojson), s.geojson_srid), 4326) END',
    source_ref: 's.source_ref',
  },
};

async function mergeLandAllocations(client: pg.PoolClient, stagingTable: string, scope: PublishScope, runId: string): Promise<ChangeCounts> {
  await client.query(`DROP TABLE IF EXISTS pg_temp.se_land_allocation_snapshot`);
  await client.query(
    `CREATE TEMP TABLE se_land_allocation_snapshot ON COMMIT DROP AS
     SELECT record_key AS allocation_id, * FROM ${stagingTable} WHERE record_kind = 'LAND_ALLOCATION'`,
  );
  return mergeTable(client, 'pg_temp.se_land_allocation_snapshot', LAND_ALLOCATION_MERGE, scope, runId);
}

const NO_CHANGE: ChangeCounts = { inserted: 0, updated: 0, deleted: 0 };

export async function publishAreas({ client, stagingTable, runId }: StagingContext, scope: PublishScope): Promise<MergeResult> {
  const kinds = await kindsIn(client, stagingTable);
  const municipality = kinds.has('MUNICIPALITY') ? await mergeMunicipalities(client, stagingTable, scope, runId) : NO_CHANGE;
  const area = kinds.has('POSTAL_CODE') ? await mergePostalCodes(client, stagingTable, scope, runId) : NO_CHANGE;
  const landAllocation = kinds.has('LAND_ALLOCATION') ? await mergeLandAllocations(client, stagingTable, scope, runId) : NO_CHANGE;
  const all = [municipality, area, landAllocation];
  return {
    inserted: all.reduce((n, c) => n + c.inserted, 0),
    updated: all.reduce((n, c) => n + c.updated, 0),
    deleted: all.reduce((n, c) => n + c.deleted, 0),
    tables: { municipality, area, land_allocation: landAllocation },
  };
}

/** Live rows of the kinds the snapshot holds, in its scope. */
export async function countLiveAreas(client: pg.PoolClient, scope: PublishScope, stagingTable: string): Promise<number> {
  const kinds = await kindsIn(client, stagingTable);
  const municipalities = scope.municipalities;
  let total = 0;
  const count = async (sql: string, params: unknown[]) => Number((await client.query<{ n: string }>(sql, params)).rows[0].n);
  if (kinds.has('MUNICIPALITY')) {
    total += await count(`SELECT count(*) AS n FROM municipality WHERE country = 'SE' ${municipalities ? 'AND code = ANY($1::text[])' : ''}`, municipalities ? [municipalities] : []);
  }
  const filter = scopeFilter('live', scope, 1);
  if (kinds.has('POSTAL_CODE')) total += await count(`SELECT count(*) AS n FROM area live WHERE ${filter.sql} AND area_kind = 'POSTAL_CODE'`, filter.params);
  if (kinds.has('LAND_ALLOCATION')) total += await count(`SELECT count(*) AS n FROM land_allocation live WHERE ${filter.sql}`, filter.params);
  return total;
}
