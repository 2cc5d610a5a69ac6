import type { CellValue, MergeResult, ParsedRecord, PublishScope, SourceAdapter, StagingContext } from '../../source-adapter.js';
import { readTeigFeatures, type TeigFeature } from './parse.js';
import { transformTo } from '../../geo/reproject.js';
import { multiPolygonEwkt } from '../../geo/ewkt.js';
import { planarArea } from '../../geo/planar-area.js';
import { countLiveRows, mergeTable, type TableMerge } from '../../publish/merge-table.js';
import { repairInvalidPolygons } from '../../publish/repair-polygons.js';
import { relinkChangedParcels } from '../../publish/parcel-links.js';
import { stepTimer } from '../../publish/step-timer.js';
import { nationalByFileName } from '../../input-scope.js';

/** Files in a UTM zone get their area from the stream; a geographic file is measured in UTM 33, Norway's national zone. */
const METRIC_SRIDS = new Set([25832, 25833, 25835]);
const AREA_SQL = `coalesce(s.area_m2, ST_Area(ST_Transform(s.geom, 25833)))`;

const PARCEL_MERGE: TableMerge = {
  liveTable: 'parcel',
  keyColumn: 'parcel_id',
  columns: {
    municipality_code: 's.municipality_code',
    geom: 's.geom',
    area_m2: AREA_SQL,
    stored_area_m2: 's.stored_area_m2',
    source_srid: 's.source_srid',
  },
};

/**
 * Sections (eierseksjoner) stand on their whole property's land: a teig that lists sections
 * also belongs to the whole property (`…-0`), which is its main unit for a coordinate lookup.
 */
function unitsOf(feature: TeigFeature): { units: string[]; main: string[] } {
  const units = new Set<string>();
  const main = new Set<string>();
  for (const unit of feature.units) {
    if (unit.seksjonsnummer > 0) {
      const whole = unit.cadastreId.replace(/-\d+$/, '-0');
      units.add(whole);
      main.add(whole);
    }
    units.add(unit.cadastreId);
    if (unit.isMainParcel && unit.seksjonsnummer === 0) main.add(unit.cadastreId);
  }
  return { units: [...units], main: [...main] };
}

function featureValues(feature: TeigFeature): CellValue[] {
  const { units, main } = unitsOf(feature);
  return [
    feature.lokalId,
    feature.kommunenummer,
    multiPolygonEwkt(feature.polygons, transformTo(feature.srid)),
    METRIC_SRIDS.has(feature.srid) ? Math.round(planarArea(feature.polygons) * 100) / 100 : null,
    feature.storedAreaM2,
    feature.srid,
    units,
    main,
  ];
}

const BATCH = 500;

async function* readTeig(input: NodeJS.ReadableStream): AsyncGenerator<ParsedRecord[]> {
  let batch: ParsedRecord[] = [];
  for await (const record of readTeigFeatures(input)) {
    batch.push(record.kind === 'reject' ? record : { kind: 'row', position: record.feature.position, values: featureValues(record.feature) });
    if (batch.length >= BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
}

/**
 * Publishes parcels and their links to the units they belong to (the `property` view reads the
 * units from the links). Links change only when their parcel's hash changes, so only changed
 * parcels have their links rewritten.
 */
async function publishCadastre({ client, stagingTable, runId, removedKeys }: StagingContext, scope: PublishScope): Promise<MergeResult> {
  const { timed, steps } = stepTimer();
  const parcels = await timed('parcel', () => mergeTable(client, stagingTable, PARCEL_MERGE, scope, runId, { timer: { timed, steps }, removedKeys }));
  // A teig links to every unit it lists; see unitsOf for which is the main one.
  const links = await timed('parcel_property', () =>
    relinkChangedParcels(
      client,
      { stagingTable, cadastreId: 'unit', isMainParcel: 'unit = ANY (s.main_units)', expand: 'CROSS JOIN LATERAL unnest(s.units) AS unit' },
      scope,
      runId,
      removedKeys,
    ),
  );

  return { ...parcels, tables: { parcel: parcels, parcel_property: links }, stepsMs: steps };
}

/** Kartverket Matrikkelen Eiendomskart Teig (GML 3.2): parcel polygons and the units they belong to. */
export const noCadastre: SourceAdapter = {
  id: 'no-cadastre',
  country: 'NO',
  scopeOf: nationalByFileName,
  title: 'Kartverket Matrikkelen Eiendomskart Teig (GML)',
  docs: 'docs/sources/no-cadastre.md',
  defaultInput:
    'https://nedlasting.geonorge.no/geonorge/Basisdata/MatrikkelenEiendomskartTeig/GML/Basisdata_0000_Norge_25833_MatrikkelenEiendomskartTeig_GML.zip',
  inputFileName: 'Basisdata_0000_Norge_25833_MatrikkelenEiendomskartTeig_GML.zip',
  zipEntry: /\.gml$/i,
  stagingColumns: [
    { name: 'parcel_id', type: 'text' },
    { name: 'municipality_code', type: 'text' },
    { name: 'geom', type: 'geometry' },
    { name: 'area_m2', type: 'double precision' },
    { name: 'stored_area_m2', type: 'double precision' },
    { name: 'source_srid', type: 'integer' },
    { name: 'units', type: 'text[]' },
    { name: 'main_units', type: 'text[]' },
  ],
  keyColumns: ['parcel_id'],
  parse: (input) => readTeig(input),
  featureRecords: { element: 'Teig' },
  repairStaged: (context) => repairInvalidPolygons(context),
  countLive: (client, scope) => countLiveRows(client, 'parcel', scope),
  publish: publishCadastre,
};

