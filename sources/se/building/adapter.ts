import type pg from 'pg';
import type { CellValue, MergeResult, ParsedRecord, PublishScope, SourceAdapter, StagingContext } from '../../source-adapter.js';
import { readGeoPackageLayer, rawAttributes } from '../../formats/geopackage-input.js';
import { inboxPath } from '../../inbox.js';
import type { GeoPackageFeature } from '../../formats/geopackage.js';
import { transformTo } from '../../geo/reproject.js';
import { multiPolygonEwkt } from '../../geo/ewkt.js';
import { planarArea } from '../../geo/planar-area.js';
import { countLiveRows, mergeTable, type TableMerge } from '../../publish/merge-table.js';
import { repairInvalidPolygons } from '../../publish/repair-polygons.js';
import { stepTimer } from '../../publish/step-timer.js';
import { coveredRowsSql, coveringCadastreSql, coveringParcelSql, estimatedSwedishParcels } from '../covering-property.js';
import { isoTimestamp, text, wholeNumber } from '../geopackage-values.js';
import { stagedMunicipalities } from '../../input-scope.js';

/**
 * Lantmäteriet Byggnad (GeoPackage, layer `byggnad`, EPSG:3006 footprints). A building can come
 * as several rows with one `objektidentitet` (multipart): every row is staged as a part (keyed
 * by its feature id) and the publish dissolves the parts into one footprint per building.
 * The layer names no municipality and no property: the municipality comes from the file name
 * (`byggnad_kn1480.gpkg`) or else from the parcel under the building, and the property is the
 * one whose parcel covers the footprint's point on surface (`se-cadastre` publishes first).
 */

const SWEREF99_TM = 3006;
const LAYER = 'byggnad';
const COLUMNS = ['objektidentitet', 'objekttyp'];
/** The Byggnad product has them all; Lantmäteriet's Topografi `byggnad` layer only the type and `skapad`. */
const OPTIONAL_COLUMNS = ['objekttypnr', 'husnummer', 'huvudbyggnad', 'andamal1', 'andamal2', 'andamal3', 'andamal4', 'andamal5', 'versiongiltigfran', 'skapad'];
const toWgs84 = transformTo(SWEREF99_TM);
/**
 * Rows hashed as records (SourceAdapter.geoPackageRecords): a night parses every part of a
 * building that has a changed, new or removed part, so the publish dissolves it from all of them.
 */
const LAYER_SPEC = {
  layer: LAYER, srid: SWEREF99_TM, columns: COLUMNS, optionalColumns: OPTIONAL_COLUMNS,
  group: { column: 'objektidentitet', staged: 'building_id', value: text },
};

/** `Bostad;Småhus friliggande` (the older GSD product wrote `Bostad; Småhus friliggande`). */
export function parseAndamal(value: unknown): { objekttyp: string; andamal: string } | null {
  const t = text(value);
  if (t === null) return null;
  const match = /^([^;]+);([^;]+)$/.exec(t);
  if (!match || !match[1].trim() || !match[2].trim()) throw new Error(`andamal "${t}" is not "objekttyp;ändamål"`);
  return { objekttyp: match[1].trim(), andamal: match[2].trim() };
}

function municipalityOfFile(fileName: string): string | null {
  return /_kn(\d{4})\b/i.exec(fileName)?.[1] ?? null;
}

function partRecord(feature: GeoPackageFeature, municipality: string | null): ParsedRecord {
  const a = feature.attributes;
  const reject = (reason: string): ParsedRecord => ({ kind: 'reject', position: feature.position, reason, raw: rawAttributes(feature) });
  if (feature.error) return reject(feature.error);
  const geometry = feature.geometry!;
  if (geometry.type !== 'Polygon' && geometry.type !== 'MultiPolygon') return reject(`geometry is a ${geometry.type}, not a footprint polygon`);
  const id = text(a.objektidentitet);
  if (!id) return reject('objektidentitet is empty');
  const main = text(a.huvudbyggnad);
  if (main !== null && main !== 'Ja' && main !== 'Nej') return reject(`huvudbyggnad "${main}" is not Ja or Nej`);
  const houseNumber = wholeNumber(a.husnummer);
  if (Number.isNaN(houseNumber)) return reject(`husnummer "${a.husnummer}" is not a whole number`);
  const typeNumber = wholeNumber(a.objekttypnr);
  if (Number.isNaN(typeNumber)) return reject(`objekttypnr "${a.objekttypnr}" is not a whole number`);
  const purposes: string[] = [];
  try {
    for (const column of ['andamal1', 'andamal2', 'andamal3', 'andamal4', 'andamal5']) {
      const purpose = parseAndamal(a[column]);
      if (purpose) purposes.push(`${purpose.objekttyp};${purpose.andamal}`);
    }
  } catch (error) {
    return reject((error as Error).message);
  }
  const values: CellValue[] = [
    id,
    municipality,
    typeNumber === null ? null : String(typeNumber),
    text(a.objekttyp),
    main === null ? null : main === 'Ja',
    houseNumber === null ? null : String(houseNumber),
    purposes,
    multiPolygonEwkt(geometry.polygons, toWgs84),
    Math.round(planarArea(geometry.polygons) * 100) / 100,
    SWEREF99_TM,
    isoTimestamp(a.versiongiltigfran ?? a.skapad),
  ];
  return { kind: 'row', position: feature.position, values };
}

/**
 * The property (and, where the file name gave none, the municipality) of each part not linked
 * yet, from the parcel covering its point on surface. Most parts (a first load, a redraw) are
 * linked from the parcels, each looking up the parts under it in an index of their points
 * (coveredRowsSql): at 0.05 × national, 409,748 parts took 28-29 s of a 78 s first load one probe
 * of the parcels each. A night's few parts are each looked up in the parcels.
 */
async function linkParts(client: pg.PoolClient, stagingTable: string): Promise<void> {
  const unlinked = Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${stagingTable} WHERE cadastre_id IS NULL`)).rows[0].n);
  if (unlinked <= FROM_PARCELS_SHARE * (await estimatedSwedishParcels(client))) {
    await client.query(
      `UPDATE ${stagingTable} s SET (cadastre_id, municipality_code) = (
         SELECT c.cadastre_id, coalesce(s.municipality_code, c.parcel_municipality_code)
         FROM (SELECT) AS one LEFT JOIN LATERAL ${coveringParcelSql('ST_PointOnSurface(s.geom)', PARCEL_MUNICIPALITY)} c ON true)
       WHERE s.cadastre_id IS NULL`,
    );
    return;
  }
  // Partial: the rows the update links leave it, and are not written into it again.
  await client.query(`CREATE INDEX ON ${stagingTable} USING gist (ST_PointOnSurface(geom)) WHERE cadastre_id IS NULL`);
  await client.query(`ANALYZE ${stagingTable}`);
  await client.query(
    `WITH covered AS MATERIALIZED (${coveredRowsSql(stagingTable, 'ST_PointOnSurface(r.geom)', 'r.cadastre_id IS NULL', PARCEL_MUNICIPALITY)})
     UPDATE ${stagingTable} s SET cadastre_id = c.cadastre_id, municipality_code = coalesce(s.municipality_code, c.parcel_municipality_code)
     FROM covered c WHERE s.ctid = c.row_id`,
  );
}

const PARCEL_MUNICIPALITY = 'p.municipality_code AS parcel_municipality_code';

/**
 * Above this many unlinked parts per Swedish parcel, linkParts links them from the parcels: where
 * the two ways cost the same. Measured on one store at 0.05 × national (176,785 parcels), the
 * two ways in turn, twice each: 90,000 parts took 5.0-6.2 s probing the parcels and 6.9-7.8 s
 * from them; 180,000 parts 10.6-11.4 s and 9.1-10.4 s. (An earlier half-a-parcel threshold sent
 * the first case the slower way.)
 */
const FROM_PARCELS_SHARE = 0.8;

/**
 * Each part's property and, where the file name gave none, its municipality, from the parcel
 * covering it (linkParts; the point-in-parcel test is most of this source's time: once per part,
 * not once here and again at publish). A part on no parcel takes the municipality boundary's
 * code (published by the area source); a part in neither is quarantined: it lies outside every
 * loaded Swedish parcel and municipality. Then polygon validity, as for parcels.
 */
async function repairBuildings(context: StagingContext) {
  const { client, stagingTable, runId, sourceId } = context;
  // Not a parsed column: derived from another register, so kept out of the row hash.
  await client.query(`ALTER TABLE ${stagingTable} ADD COLUMN IF NOT EXISTS cadastre_id text`);
  // A one-part building whose footprint is live unchanged keeps its live link, which the
  // cadastre's publish keeps true (covering-property.ts), and its property's municipality: on a
  // night most parts skip the point-in-parcel test.
  await client.query(
    `UPDATE ${stagingTable} s SET cadastre_id = live.cadastre_id, municipality_code = coalesce(s.municipality_code, pr.municipality_code)
     FROM building live JOIN property_register pr ON pr.country = 'SE' AND pr.cadastre_id = live.cadastre_id
     WHERE live.country = 'SE' AND live.building_id = s.building_id AND live.geom = ST_Multi(s.geom)
       AND NOT EXISTS (SELECT 1 FROM ${stagingTable} other WHERE other.building_id = s.building_id AND other.src_pos <> s.src_pos)`,
  );
  await linkParts(client, stagingTable);
  await client.query(
    `UPDATE ${stagingTable} s SET municipality_code =
       (SELECT m.code FROM municipality m WHERE m.country = 'SE' AND m.geom IS NOT NULL AND ST_Covers(m.geom, ST_PointOnSurface(s.geom)) ORDER BY m.code LIMIT 1)
     WHERE s.municipality_code IS NULL`,
  );
  const outside = await client.query(
    `WITH removed AS (DELETE FROM ${stagingTable} s WHERE s.municipality_code IS NULL RETURNING s.src_pos, left(s::text, 2000) AS raw)
     INSERT INTO source_reject (run_id, source_id, position, reason, raw)
     SELECT $1, $2, src_pos, 'no municipality: the file name has no kommunkod and the building is on no loaded Swedish parcel or municipality (load se-cadastre first)', raw
     FROM removed`,
    [runId, sourceId],
  );
  const repaired = await repairInvalidPolygons(context);
  // A repaired footprint (its area cleared by the repair) may have another point on its surface.
  await client.query(`UPDATE ${stagingTable} s SET cadastre_id = ${coveringCadastreSql('ST_PointOnSurface(s.geom)')} WHERE s.area_m2 IS NULL`);
  return { repaired: repaired.repaired, rejected: repaired.rejected + (outside.rowCount ?? 0) };
}

const BUILDING_MERGE: TableMerge = {
  liveTable: 'building',
  keyColumn: 'building_id',
  columns: {
    building_number: 's.building_id',
    cadastre_id: 's.cadastre_id',
    municipality_code: 's.municipality_code',
    building_type_code: 's.building_type_code',
    building_type_name: 's.building_type_name',
    is_main_building: 's.is_main_building',
    house_number: 's.house_number',
    purposes: 's.purposes',
    geom: 's.geom',
    location: 'ST_PointOnSurface(s.geom)',
    footprint_m2: 's.footprint_m2',
    source_srid: 's.source_srid',
    source_updated_at: 's.source_updated_at',
  },
};

/**
 * A building's hash: its parts' staged hashes (their parsed content; a part's position in the
 * file is not a column, so a file written again after one building is removed, which numbers
 * every later row one lower, hashes the same) and each part's municipality, which the repair
 * may have taken from the parcel under it. The hash was once taken over each part's columns,
 * geometry as text included, in SQL: 2 of the 7.6 s a changed night's dissolve took at
 * 0.05 x national (400,000 parts). The first publish after that change rewrote every building.
 */
const PART_HASH = `s.row_hash::text || ':' || coalesce(s.municipality_code, '')`;

async function publishBuildings({ client, stagingTable, runId, removedKeys }: StagingContext, scope: PublishScope): Promise<MergeResult> {
  const { timed, steps } = stepTimer();
  // One row per building: the first part's attributes, the parts' union as the footprint
  // (touching parts become one polygon), the area measured in SWEREF 99 TM.
  await timed('dissolve', () => client.query(
    `CREATE TEMP TABLE se_building_dissolved ON COMMIT DROP AS
     SELECT first.building_id, first.municipality_code, first.building_type_code, first.building_type_name, first.is_main_building,
            first.house_number, first.purposes, first.source_updated_at, first.source_srid, parts.geom, parts.row_hash,
            -- A single part was linked in the repair step; a dissolved footprint has its own point on surface.
            CASE WHEN parts.count = 1 THEN first.cadastre_id ELSE ${coveringCadastreSql('ST_PointOnSurface(parts.geom)')} END AS cadastre_id,
            CASE WHEN parts.count = 1 THEN coalesce(first.area_m2, ST_Area(ST_Transform(first.geom, ${SWEREF99_TM})))
                 ELSE round(ST_Area(ST_Transform(parts.geom, ${SWEREF99_TM}))::numeric, 2)::double precision END AS footprint_m2
     FROM (
       SELECT s.building_id, count(*) AS count,
              CASE WHEN count(*) = 1 THEN ST_Multi((array_agg(s.geom))[1])
                   ELSE ST_Multi(ST_CollectionExtract(ST_UnaryUnion(ST_Collect(s.geom)), 3)) END AS geom,
              md5(string_agg(${PART_HASH}, ',' ORDER BY s.src_pos))::uuid AS row_hash
       FROM ${stagingTable} s GROUP BY s.building_id
     ) parts
     JOIN (SELECT DISTINCT ON (building_id) * FROM ${stagingTable} ORDER BY building_id, src_pos) first USING (building_id)`,
  ));
  await timed('dissolved_index', async () => {
    await client.query(`CREATE INDEX ON se_building_dissolved (building_id)`);
    await client.query(`ANALYZE se_building_dissolved`);
  });
  // The buildings it writes are linked as they are written; the cadastre's publish re-links the rest.
  // On a night staging holds the buildings with a changed part only: the ones whose every part is gone are removedKeys.
  const counts = await timed('building', () => mergeTable(client, 'se_building_dissolved', BUILDING_MERGE, scope, runId, { timer: { timed, steps }, removedKeys }));
  return { ...counts, tables: { building: counts }, stepsMs: steps };
}

export const seBuilding: SourceAdapter = {
  id: 'se-building',
  country: 'SE',
  scopeOf: stagedMunicipalities,
  title: 'Lantmäteriet Byggnad (GeoPackage)',
  docs: 'docs/sources/se-building.md',
  // Lantmäteriet delivers one zip per municipality behind a Geotorget order (docs/sources/se-geodata.md);
  // the operator's fetcher leaves the national file in the inbox. `backfill --input` loads one municipality.
  get defaultInput() {
    return inboxPath('byggnad_sverige.gpkg');
  },
  inputFileName: 'byggnad_sverige.gpkg',
  dependsOn: ['se-cadastre'],
  zipEntry: /\.gpkg$/i,
  stagingColumns: [
    { name: 'building_id', type: 'text' },
    { name: 'municipality_code', type: 'text' },
    { name: 'building_type_code', type: 'text' },
    { name: 'building_type_name', type: 'text' },
    { name: 'is_main_building', type: 'boolean' },
    { name: 'house_number', type: 'text' },
    { name: 'purposes', type: 'text[]' },
    { name: 'geom', type: 'geometry' },
    { name: 'area_m2', type: 'double precision' },
    { name: 'source_srid', type: 'integer' },
    { name: 'source_updated_at', type: 'timestamp' },
  ],
  // A part is named by its position in the file: the layer's fid. Parts of one building share
  // its objektidentitet; the publish dissolves them.
  keyColumns: ['src_pos'],
  parse: (input, context) => {
    const municipality = municipalityOfFile(context.fileName);
    return readGeoPackageLayer(input, context, LAYER_SPEC, (feature) => partRecord(feature, municipality));
  },
  geoPackageRecords: LAYER_SPEC,
  repairStaged: repairBuildings,
  // A multipart building is one live row but several staged parts: compare buildings with buildings.
  countLive: (client, scope) => countLiveRows(client, 'building', scope),
  publish: publishBuildings,
};
