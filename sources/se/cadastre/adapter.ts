import type pg from 'pg';
import type { CellValue, MergeResult, ParsedRecord, PublishScope, SourceAdapter, StagingContext } from '../../source-adapter.js';
import { readGeoPackageLayer, rawAttributes } from '../../formats/geopackage-input.js';
import { InputFormatError } from '../../formats/input-error.js';
import { inboxPath } from '../../inbox.js';
import type { GeoPackageFeature } from '../../formats/geopackage.js';
import { transformTo } from '../../geo/reproject.js';
import { multiPolygonEwkt } from '../../geo/ewkt.js';
import { planarArea } from '../../geo/planar-area.js';
import { countLiveRows, mergeTable, withKeyLookups, type TableMerge } from '../../publish/merge-table.js';
import { repairInvalidPolygons } from '../../publish/repair-polygons.js';
import { relinkChangedParcels } from '../../publish/parcel-links.js';
import { isEmpty } from '../../publish/indexes-after.js';
import { stepTimer } from '../../publish/step-timer.js';
import { isUnitCode, normalBlock, parseEtikett, seCadastreId, seDesignation, SeDesignationError, typeOfBlock } from '../cadastre-id.js';
import { isoTimestamp, paddedCode, text, wholeNumber } from '../geopackage-values.js';
import { changedParcels, collectReplacedParcels, relinkAfterCadastre, type CoveringPlaceSql } from '../covering-property.js';
import { stagedMunicipalities } from '../../input-scope.js';

/**
 * Lantmäteriet Fastighetsindelning (GeoPackage, layer `registerenhetsomradesyta`, EPSG:3006):
 * one row per area (registerenhetsområde, a "skifte"); a property (registerenhet) is every area
 * with the same `registerenhetsreferens`. Each area is staged and published as a parcel linked
 * to its property's cadastreId, so the coordinate lookup works as in Norway; the properties
 * themselves (designation, register UUID, type, total area, number of areas) go to
 * `property_register`.
 */

const SWEREF99_TM = 3006;
export const CADASTRE_LAYER = 'registerenhetsomradesyta';
const COLUMNS = ['objektidentitet', 'registerenhetsreferens', 'objekttyp', 'senastandrad', 'kommunkod', 'kommunnamn', 'trakt', 'block', 'enhet', 'omradesnummer', 'etikett'];
const LAYER_SPEC = { layer: CADASTRE_LAYER, srid: SWEREF99_TM, columns: COLUMNS };
const toWgs84 = transformTo(SWEREF99_TM);

/** Property type by the area's objekttyp (register values, lower case). */
const PROPERTY_TYPES: Record<string, string> = {
  'fastighetsområde': 'FASTIGHET',
  'outrett fastighetsområde': 'FASTIGHET',
  'sämjedelad fastighet': 'FASTIGHET',
  'samfällighetsområde': 'SAMFÄLLIGHET',
  'outrett samfällighetsområde': 'SAMFÄLLIGHET',
  'fiskesamfällighet': 'SAMFÄLLIGHET',
  'järnvägsområde': 'JÄRNVÄGSOMRÅDE',
  'fiskelott': 'FISKELOTT',
  'ospecificerat område': 'OSPECIFICERAT',
};

function propertyType(objekttyp: string | null, block: string | null): string | null {
  // The designation's letter code (S, GA, FA) decides, as property_type() does from the id.
  if (isUnitCode(block)) return typeOfBlock(block);
  return objekttyp === null ? 'FASTIGHET' : PROPERTY_TYPES[objekttyp.toLowerCase()] ?? null;
}

/** Block and enhet from their columns, checked against the etikett (whose `>n` area suffix is dropped). */
function blockAndUnit(a: Record<string, unknown>): { block: string | null; enhet: number } {
  const etikett = text(a.etikett);
  const fromLabel = etikett === null ? null : parseEtikett(etikett);
  const enhet = wholeNumber(a.enhet);
  if (enhet === null) {
    if (!fromLabel) throw new SeDesignationError('neither enhet nor etikett is set');
    return fromLabel;
  }
  if (Number.isNaN(enhet)) throw new SeDesignationError(`enhet "${a.enhet}" is not a whole number`);
  const blockText = text(a.block);
  let block = blockText === null ? null : normalBlock(blockText);
  // A samfällighet's S (or GA, FA) may be given only in the etikett.
  if (block === null && isUnitCode(fromLabel?.block ?? null)) block = fromLabel!.block;
  if (fromLabel && (fromLabel.block !== block || fromLabel.enhet !== enhet)) {
    throw new SeDesignationError(`etikett "${etikett}" disagrees with block "${a.block ?? ''}" and enhet ${enhet}`);
  }
  return { block, enhet };
}

function areaRecord(feature: GeoPackageFeature): ParsedRecord {
  const a = feature.attributes;
  const reject = (reason: string): ParsedRecord => ({ kind: 'reject', position: feature.position, reason, raw: rawAttributes(feature) });
  if (feature.error) return reject(feature.error);
  const geometry = feature.geometry!;
  if (geometry.type !== 'Polygon' && geometry.type !== 'MultiPolygon') return reject(`geometry is a ${geometry.type}, not a polygon`);
  const areaId = text(a.objektidentitet);
  const registerRef = text(a.registerenhetsreferens);
  if (!areaId) return reject('objektidentitet is empty');
  if (!registerRef) return reject('registerenhetsreferens is empty: the area belongs to no property');
  const kommunkod = paddedCode(a.kommunkod, 4);
  if (!kommunkod) return reject(`kommunkod "${a.kommunkod ?? ''}" is not a municipality code`);
  const kommunnamn = text(a.kommunnamn);
  const trakt = text(a.trakt);
  if (!kommunnamn || !trakt) return reject(`kommunnamn "${a.kommunnamn ?? ''}" or trakt "${a.trakt ?? ''}" is empty`);
  let cadastreId: string, designation: string, block: string | null;
  try {
    const unit = blockAndUnit(a);
    block = unit.block;
    const parts = { kommunkod, kommunnamn, trakt, block: unit.block, enhet: unit.enhet };
    cadastreId = seCadastreId(parts);
    designation = seDesignation(parts);
  } catch (error) {
    if (error instanceof SeDesignationError) return reject(error.message);
    throw error;
  }
  const type = propertyType(text(a.objekttyp), block);
  if (!type) return reject(`objekttyp "${a.objekttyp}" is not a Fastighetsindelning area type`);
  const areaNumber = wholeNumber(a.omradesnummer);
  const values: CellValue[] = [
    areaId,
    registerRef,
    cadastreId,
    designation,
    kommunkod,
    type,
    areaNumber !== null && !Number.isNaN(areaNumber) ? areaNumber : null,
    multiPolygonEwkt(geometry.polygons, toWgs84),
    Math.round(planarArea(geometry.polygons) * 100) / 100,
    SWEREF99_TM,
    isoTimestamp(a.senastandrad),
  ];
  return { kind: 'row', position: feature.position, values };
}

/**
 * Beyond polygon validity: the areas of one property must agree on its designation, and one
 * designation must not name two properties. Later conflicting areas are quarantined.
 */
async function repairCadastre(context: StagingContext) {
  const { client, stagingTable, runId, sourceId } = context;
  // Sorted by the keys' bytes (COLLATE "C"; equality, hence the groups, is the same under any
  // deterministic collation): through the database's C.UTF-8 (strcoll) the two sorts took
  // 1.2-1.6 s for 180,000 synthetic areas, by bytes 0.7 s.
  const conflicts = await client.query(
    `WITH firsts AS (
       SELECT DISTINCT ON (register_ref COLLATE "C") register_ref, cadastre_id, src_pos FROM ${stagingTable} ORDER BY register_ref COLLATE "C", src_pos
     ), by_id AS (
       SELECT DISTINCT ON (cadastre_id COLLATE "C") cadastre_id, register_ref, src_pos FROM ${stagingTable} ORDER BY cadastre_id COLLATE "C", src_pos
     ), bad AS (
       SELECT s.src_pos, 'area of property ' || s.register_ref || ' is designated ' || s.cadastre_id || ', its first area ' || f.cadastre_id || ' (position ' || f.src_pos || ')' AS reason
       FROM ${stagingTable} s JOIN firsts f USING (register_ref) WHERE s.cadastre_id <> f.cadastre_id
       UNION ALL
       SELECT s.src_pos, 'designation ' || s.cadastre_id || ' belongs to property ' || b.register_ref || ' (position ' || b.src_pos || '), not ' || s.register_ref
       FROM ${stagingTable} s JOIN by_id b USING (cadastre_id) WHERE s.register_ref <> b.register_ref
     ), removed AS (
       DELETE FROM ${stagingTable} s USING (SELECT DISTINCT ON (src_pos) src_pos, reason FROM bad) b WHERE s.src_pos = b.src_pos
       RETURNING s.src_pos, b.reason, left(s::text, 2000) AS raw
     )
     INSERT INTO source_reject (run_id, source_id, position, reason, raw) SELECT $1, $2, src_pos, reason, raw FROM removed`,
    [runId, sourceId],
  );
  const repaired = await repairInvalidPolygons(context);
  return { repaired: repaired.repaired, rejected: repaired.rejected + (conflicts.rowCount ?? 0) };
}

const AREA_SQL = `coalesce(s.area_m2, ST_Area(ST_Transform(s.geom, ${SWEREF99_TM})))`;

/** Each area links to its one property; the first area (område 1) is the main parcel. */
const PARCEL_LINK = { cadastreId: 's.cadastre_id', isMainParcel: 'coalesce(s.area_number, 1) = 1' };

/** What places a staged area in the covering order, as the merge writes it (collectReplacedParcels). */
export const PARCEL_PLACE: CoveringPlaceSql = { areaM2: AREA_SQL, ...PARCEL_LINK };

const PARCEL_MERGE: TableMerge = {
  liveTable: 'parcel',
  keyColumn: 'parcel_id',
  columns: { municipality_code: 's.municipality_code', geom: 's.geom', area_m2: AREA_SQL, stored_area_m2: 'NULL', source_srid: 's.source_srid' },
};

const PROPERTY_MERGE: TableMerge = {
  liveTable: 'property_register',
  keyColumn: 'cadastre_id',
  columns: {
    register_ref: 's.register_ref', designation: 's.designation', municipality_code: 's.municipality_code',
    property_type: 's.property_type', area_m2: 's.area_m2', plot_count: 's.plot_count',
  },
};

/**
 * A property's area, area count and hash over its areas `a` (staged rows, or live parcels whose
 * area_m2 and row_hash the merge wrote from them): one expression for both, so that a night's
 * property is the one a whole snapshot gives.
 */
const propertyAggregates = (a: string, areaM2: string) => `
  round(sum(${areaM2})::numeric, 2)::double precision AS area_m2, count(*)::int AS plot_count,
  md5(string_agg(${a}.row_hash::text, ',' ORDER BY ${a}.parcel_id))::uuid AS row_hash`;

/** The staged areas' properties, each from its areas as a whole snapshot holds them all. */
const SNAPSHOT_PROPERTIES_SQL = (stagingTable: string) => `
  SELECT s.cadastre_id, min(s.register_ref) AS register_ref, min(s.designation) AS designation,
         min(s.municipality_code) AS municipality_code, min(s.property_type) AS property_type,
         ${propertyAggregates('s', AREA_SQL)}
  FROM ${stagingTable} s GROUP BY s.cadastre_id`;

/**
 * On a night that staged only the changed areas, the properties they touch (those the staged
 * areas name and those the staged or removed areas belonged to), computed from all their areas
 * as live holds them after the parcel merge: the same sums and hash as a whole snapshot gives.
 * Designation, register UUID and type come from the staged areas, else from the property as
 * published (its areas agree on them: repairCadastre). A touched property left without areas is
 * not in it.
 *
 * Each touched property looks up its areas and its published row by key (LATERAL; OFFSET 0 keeps
 * the planner from turning the latter into a join): as joins, the planner hashed every Swedish
 * property and parcel link to find those of 3,145 touched properties (0.4 s of a night at
 * 0.05 × national).
 */
const TOUCHED_PROPERTIES_SQL = (stagingTable: string) => `
  WITH staged AS (
    SELECT s.cadastre_id, min(s.register_ref) AS register_ref, min(s.designation) AS designation, min(s.property_type) AS property_type
    FROM ${stagingTable} s GROUP BY s.cadastre_id
  )
  SELECT t.cadastre_id, coalesce(st.register_ref, live.register_ref) AS register_ref,
         coalesce(st.designation, live.designation) AS designation,
         areas.municipality_code, coalesce(st.property_type, live.property_type) AS property_type,
         areas.area_m2, areas.plot_count, areas.row_hash
  FROM se_touched_property t
  CROSS JOIN LATERAL (
    SELECT min(p.municipality_code) AS municipality_code, ${propertyAggregates('p', 'p.area_m2')}
    FROM parcel_property pp JOIN parcel p ON p.country = 'SE' AND p.parcel_id = pp.parcel_id
    WHERE pp.country = 'SE' AND pp.cadastre_id = t.cadastre_id
  ) areas
  LEFT JOIN staged st ON st.cadastre_id = t.cadastre_id
  LEFT JOIN LATERAL (
    SELECT live.register_ref, live.designation, live.property_type FROM property_register live
    WHERE live.country = 'SE' AND live.cadastre_id = t.cadastre_id OFFSET 0
  ) live ON true
  WHERE areas.plot_count > 0`;

/** Before the parcel merge of an increment: the properties whose areas it stages or removes, as linked now and as staged, into pg_temp.se_touched_property. */
async function collectTouchedProperties(client: pg.PoolClient, stagingTable: string, removedKeys: string): Promise<void> {
  await client.query(
    `CREATE TEMP TABLE se_touched_property ON COMMIT DROP AS
     SELECT s.cadastre_id FROM ${stagingTable} s
     UNION
     SELECT pp.cadastre_id FROM parcel_property pp
     WHERE pp.country = 'SE' AND pp.parcel_id IN (SELECT parcel_id FROM ${stagingTable} UNION ALL SELECT parcel_id FROM ${removedKeys})`,
  );
}

/**
 * An increment's staged areas checked against the areas it leaves as they are. A whole snapshot
 * quarantines the later of two areas that disagree on their property (repairCadastre); here the
 * other area is live and unchanged, so the night fails instead, with live untouched, and a
 * forced run reads the file whole.
 */
async function assertAgreesWithUnchangedAreas(client: pg.PoolClient, stagingTable: string): Promise<void> {
  // By key: hashed, it read every Swedish property and parcel link (0.3 s of a night at 0.05 × national);
  // and by key in the staged areas too, which a nested loop otherwise read whole once per property.
  await client.query(`CREATE INDEX ON ${stagingTable} (parcel_id)`);
  await client.query(`ANALYZE ${stagingTable}`);
  const conflicts = await withKeyLookups(client, () => client.query<{ reason: string }>(
    `SELECT 'property ' || s.register_ref || ' is designated ' || s.cadastre_id || ' by a changed area and ' || live.cadastre_id || ' by unchanged ones' AS reason
     FROM se_property_snapshot s
     JOIN property_register live ON live.country = 'SE' AND live.register_ref = s.register_ref AND live.cadastre_id <> s.cadastre_id
     WHERE EXISTS (SELECT 1 FROM parcel_property pp WHERE pp.country = 'SE' AND pp.cadastre_id = live.cadastre_id)
     UNION ALL
     SELECT 'designation ' || s.cadastre_id || ' names property ' || s.register_ref || ' in a changed area and ' || live.register_ref || ' in unchanged ones'
     FROM se_property_snapshot s
     JOIN property_register live ON live.country = 'SE' AND live.cadastre_id = s.cadastre_id AND live.register_ref <> s.register_ref
     WHERE EXISTS (SELECT 1 FROM parcel_property pp WHERE pp.country = 'SE' AND pp.cadastre_id = s.cadastre_id
                     AND NOT EXISTS (SELECT 1 FROM ${stagingTable} st WHERE st.parcel_id = pp.parcel_id))
     LIMIT 5`,
  ));
  if (conflicts.rows.length === 0) return;
  throw new InputFormatError(
    `se-cadastre: changed areas disagree with unchanged ones on their property (${conflicts.rows.map((row) => row.reason).join('; ')}); live was not changed. ` +
      'A forced run (--force) reads the whole file and quarantines the later area.',
  );
}

async function publishCadastre({ client, stagingTable, runId, removedKeys }: StagingContext, scope: PublishScope): Promise<MergeResult> {
  const { timed, steps } = stepTimer();
  // The parcels the merge will replace or remove, as they are now: rows under them re-link too.
  await timed('replaced_parcels', () => collectReplacedParcels(client, stagingTable, scope, PARCEL_PLACE, removedKeys));
  if (removedKeys) await timed('touched_properties', () => collectTouchedProperties(client, stagingTable, removedKeys));
  const firstOfCountry = await isEmpty(client, 'parcel', scope.country);
  const parcels = await timed('parcel', () => mergeTable(client, stagingTable, PARCEL_MERGE, scope, runId, { timer: { timed, steps }, removedKeys }));
  const links = await timed('parcel_property', () => relinkChangedParcels(client, { stagingTable, ...PARCEL_LINK }, scope, runId, removedKeys));
  // Sweden's first parcels in a table that holds Norway's: until analyzed, the planner takes
  // Sweden for empty, and the re-links below looked up each address's parcel by reading all of
  // them (minutes at 0.002 × national, when the addresses were loaded first).
  if (firstOfCountry) await timed('analyze', () => client.query('ANALYZE parcel, parcel_property'));

  // One row per property; its hash is its areas' hashes, so it changes when any area does.
  // On an increment, a touched property left without areas is gone from the register, and the
  // addresses and buildings on it lose their link.
  let emptied: string | undefined;
  const properties = await timed('property_register', async () => {
    await client.query(`CREATE TEMP TABLE se_property_snapshot ON COMMIT DROP AS ${removedKeys ? TOUCHED_PROPERTIES_SQL(stagingTable) : SNAPSHOT_PROPERTIES_SQL(stagingTable)}`);
    if (removedKeys) {
      await assertAgreesWithUnchangedAreas(client, stagingTable);
      await withKeyLookups(client, () =>
        client.query(
          `CREATE TEMP TABLE se_emptied_property ON COMMIT DROP AS
           SELECT t.cadastre_id FROM se_touched_property t
           WHERE NOT EXISTS (SELECT 1 FROM parcel_property pp WHERE pp.country = 'SE' AND pp.cadastre_id = t.cadastre_id)`,
        ),
      );
      emptied = 'pg_temp.se_emptied_property';
    }
    // A re-designated property keeps its register UUID: its old designation goes first, or the
    // new one would collide with it on the unique register_ref.
    const rename = () =>
      client.query(
        `DELETE FROM property_register live USING se_property_snapshot s
         WHERE live.country = $1 AND live.register_ref = s.register_ref AND live.cadastre_id <> s.cadastre_id`,
        [scope.country],
      );
    // An increment's few properties by key: hashed, the delete read every Swedish property.
    const renamed = await (removedKeys ? withKeyLookups(client, rename) : rename());
    const merged = await mergeTable(client, 'se_property_snapshot', PROPERTY_MERGE, scope, runId, { timer: { timed, steps }, removedKeys: emptied });
    return { ...merged, deleted: merged.deleted + (renamed.rowCount ?? 0) };
  });

  // Addresses and buildings on changed parcels follow their property (see covering-property.ts).
  const changed = await timed('changed_parcels', () => changedParcels(client, runId, parcels));
  const addressLinks = await timed('address_property_link', () => relinkAfterCadastre(client, 'address', changed, emptied));
  const buildingLinks = await timed('building_property_link', () => relinkAfterCadastre(client, 'building', changed, emptied));

  return {
    inserted: parcels.inserted + properties.inserted,
    updated: parcels.updated + properties.updated,
    deleted: parcels.deleted + properties.deleted,
    tables: { parcel: parcels, parcel_property: links, property_register: properties, address: addressLinks, building: buildingLinks },
    stepsMs: steps,
  };
}

export const seCadastre: SourceAdapter = {
  id: 'se-cadastre',
  country: 'SE',
  scopeOf: stagedMunicipalities,
  title: 'Lantmäteriet Fastighetsindelning (GeoPackage)',
  docs: 'docs/sources/se-geodata.md',
  // Lantmäteriet delivers one zip per municipality behind a Geotorget order (docs/sources/se-geodata.md);
  // the operator's fetcher leaves the national file in the inbox. `backfill --input` loads one municipality.
  get defaultInput() {
    return inboxPath('fastighetsindelning_sverige.gpkg');
  },
  inputFileName: 'fastighetsindelning_sverige.gpkg',
  zipEntry: /\.gpkg$/i,
  stagingColumns: [
    { name: 'parcel_id', type: 'text' },
    { name: 'register_ref', type: 'text' },
    { name: 'cadastre_id', type: 'text' },
    { name: 'designation', type: 'text' },
    { name: 'municipality_code', type: 'text' },
    { name: 'property_type', type: 'text' },
    { name: 'area_number', type: 'integer' },
    { name: 'geom', type: 'geometry' },
    { name: 'area_m2', type: 'double precision' },
    { name: 'source_srid', type: 'integer' },
    { name: 'source_updated_at', type: 'timestamptz' },
  ],
  keyColumns: ['parcel_id'],
  parse: (input, context) => readGeoPackageLayer(input, context, LAYER_SPEC, areaRecord),
  // A night parses only the areas whose row changed; the publish recomputes the properties they touch.
  geoPackageRecords: LAYER_SPEC,
  repairStaged: repairCadastre,
  countLive: (client, scope) => countLiveRows(client, 'parcel', scope),
  publish: publishCadastre,
};
