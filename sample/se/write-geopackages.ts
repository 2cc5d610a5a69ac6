/**
 * The Swedish sample registers as Lantmäteriet GeoPackages, written from the Swedish sample
 * plan with better-sqlite3 (`sources/formats/geopackage-writer.ts`): one national file per
 * register (Lantmäteriet itself delivers one per municipality; the adapters read either), named
 * as the adapters' `inputFileName`:
 * - fastighetsindelning_sverige.gpkg, layer `registerenhetsomradesyta` (one row per area)
 * - belagenhetsadresser_sverige.gpkg, layer `belagenhetsadress` (points)
 * - byggnad_sverige.gpkg, layer `byggnad` (one row per part: multipart buildings repeat their
 *   objektidentitet)
 * The sample holds as many Swedish properties as the Norwegian sample has parcels.
 */
import { GeoPackageWriter, type GeoPackageLayerSpec } from '../../sources/formats/geopackage-writer.js';
import type { SampleRegisterFile, SampleWriteContext } from '../register-files.js';
import { propertiesOfSwedishPlan, swedishPlanOf } from './properties.js';
import type { SePoint, SeSampleProperty } from './types.js';
import { cursorMovedBy, waitIfAhead, type WindowCursor } from '../index-window.js';

const flat = (ring: SePoint[]) => ring.flatMap(([east, north]) => [east, north]);

const CADASTRE_LAYER: GeoPackageLayerSpec = {
  table: 'registerenhetsomradesyta',
  geometryColumn: 'geom',
  geometryType: 'MULTIPOLYGON',
  srsId: 3006,
  columns: [
    { name: 'objektidentitet', type: 'TEXT' }, { name: 'registerenhetsreferens', type: 'TEXT' }, { name: 'objekttyp', type: 'TEXT' },
    { name: 'senastandrad', type: 'DATETIME' }, { name: 'lanskod', type: 'TEXT' }, { name: 'kommunkod', type: 'TEXT' },
    { name: 'kommunnamn', type: 'TEXT' }, { name: 'trakt', type: 'TEXT' }, { name: 'block', type: 'TEXT' },
    { name: 'enhet', type: 'INTEGER' }, { name: 'omradesnummer', type: 'INTEGER' }, { name: 'etikett', type: 'TEXT' },
  ],
};

const ADDRESS_LAYER: GeoPackageLayerSpec = {
  table: 'belagenhetsadress',
  geometryColumn: 'adressplatspunkt',
  geometryType: 'POINT',
  srsId: 3006,
  columns: [
    { name: 'belagenhetsadress_objektidentitet', type: 'TEXT' }, { name: 'adressplatstyp', type: 'TEXT' },
    { name: 'adressomrade_faststalltnamn', type: 'TEXT' }, { name: 'adressomradestyp', type: 'TEXT' },
    { name: 'gardsadressomrade_faststalltnamn', type: 'TEXT' }, { name: 'adressplatsnummer', type: 'TEXT' },
    { name: 'bokstavstillagg', type: 'TEXT' }, { name: 'lagestillagg', type: 'TEXT' }, { name: 'lagestillaggsnummer', type: 'INTEGER' },
    { name: 'avvikerfranstandarden', type: 'BOOLEAN' }, { name: 'avvikandeadressplatsbeteckning', type: 'TEXT' },
    { name: 'kommundel_faststalltnamn', type: 'TEXT' }, { name: 'kommunkod', type: 'TEXT' }, { name: 'kommunnamn', type: 'TEXT' },
    { name: 'lanskod', type: 'TEXT' }, { name: 'popularnamn', type: 'TEXT' }, { name: 'postnummer', type: 'INTEGER' },
    { name: 'postort', type: 'TEXT' }, { name: 'statusforbelagenhetsadress', type: 'TEXT' }, { name: 'versiongiltigfran', type: 'DATETIME' },
  ],
};

const BUILDING_LAYER: GeoPackageLayerSpec = {
  table: 'byggnad',
  geometryColumn: 'geom',
  geometryType: 'MULTIPOLYGON',
  srsId: 3006,
  columns: [
    { name: 'objektidentitet', type: 'TEXT' }, { name: 'versiongiltigfran', type: 'DATETIME' }, { name: 'objektversion', type: 'INTEGER' },
    { name: 'objekttypnr', type: 'INTEGER' }, { name: 'objekttyp', type: 'TEXT' }, { name: 'insamlingslage', type: 'TEXT' },
    { name: 'byggnadsnamn1', type: 'TEXT' }, { name: 'husnummer', type: 'INTEGER' }, { name: 'huvudbyggnad', type: 'TEXT' },
    { name: 'andamal1', type: 'TEXT' }, { name: 'andamal2', type: 'TEXT' }, { name: 'andamal3', type: 'TEXT' },
    { name: 'andamal4', type: 'TEXT' }, { name: 'andamal5', type: 'TEXT' },
  ],
};

type RowsOf = (property: SeSampleProperty, writer: GeoPackageWriter) => void;

function writeLayer(path: string, layer: GeoPackageLayerSpec, context: SampleWriteContext, rowsOf: RowsOf): { rows: number } {
  const plan = swedishPlanOf(context);
  const writer = GeoPackageWriter.create(path, layer);
  try {
    for (const property of propertiesOfSwedishPlan(plan)) rowsOf(property, writer);
  } finally {
    writer.close();
  }
  return { rows: writer.rows };
}

/** Properties between two turns of the event loop when the generator writes the layers together. */
const TURN = 100;

/**
 * The same file, written in turns: the other Swedish writers stream the same properties at the
 * same time, and the generator builds each property once for all of them (sample/index-window.ts).
 */
async function writeLayerInTurns(path: string, layer: GeoPackageLayerSpec, context: SampleWriteContext, rowsOf: RowsOf): Promise<{ rows: number }> {
  const plan = swedishPlanOf(context);
  const writer = GeoPackageWriter.create(path, layer);
  try {
    const properties = propertiesOfSwedishPlan(plan);
    let own: WindowCursor | undefined;
    try {
      for (let done = 1; ; done++) {
        const { result, cursor } = cursorMovedBy(() => properties.next());
        own ??= cursor;
        if (result.done) break;
        rowsOf(result.value, writer);
        if (done % TURN === 0) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          await waitIfAhead(own);
        }
      }
    } finally {
      properties.return(undefined); // a failed pass must not hold the other writers back
    }
  } finally {
    writer.close();
  }
  return { rows: writer.rows };
}

const cadastreRows: RowsOf = (p, writer) => {
  for (const area of p.areas) {
    writer.add(
      [area.objektidentitet, p.registerenhetsreferens, p.objekttyp, p.senastandrad, p.lanskod, p.kommunkod, p.kommunnamn, p.trakt, p.block, p.enhet, area.omradesnummer, area.etikett],
      { type: 'MultiPolygon', polygons: [[flat(area.exterior)]] },
    );
  }
};

export function writeSeCadastreGpkg(context: SampleWriteContext): { rows: number } {
  return writeLayer(context.path, CADASTRE_LAYER, context, cadastreRows);
}

const addressRows: RowsOf = (p, writer) => {
  for (const a of p.addresses) {
    writer.add(
      [a.objektidentitet, a.adressplatstyp, a.adressomrade, 'Gatuadressområde', null, a.adressplatsnummer, a.bokstavstillagg, a.lagestillagg,
        a.lagestillaggsnummer, a.avvikerfranstandarden, a.avvikandeadressplatsbeteckning, null, p.kommunkod, p.kommunnamn.charAt(0) + p.kommunnamn.slice(1).toLocaleLowerCase('sv-SE'),
        p.lanskod, null, a.postnummer, a.postort, a.statusforbelagenhetsadress, a.versiongiltigfran],
      { type: 'Point', points: [...a.point] },
    );
  }
};

export function writeSeAddressGpkg(context: SampleWriteContext): { rows: number } {
  return writeLayer(context.path, ADDRESS_LAYER, context, addressRows);
}

const buildingRows: RowsOf = (p, writer) => {
  for (const b of p.buildings) {
    const andamal = [0, 1, 2, 3, 4].map((i) => b.andamal[i] ?? null);
    for (const part of b.parts) {
      writer.add(
        [b.objektidentitet, b.versiongiltigfran, 1, b.objekttypnr, b.objekttyp, 'Takkant', null, b.husnummer, b.huvudbyggnad, ...andamal],
        { type: 'MultiPolygon', polygons: [[flat(part)]] },
      );
    }
  }
};

export function writeSeBuildingGpkg(context: SampleWriteContext): { rows: number } {
  return writeLayer(context.path, BUILDING_LAYER, context, buildingRows);
}

export const SE_GEODATA_SAMPLE_FILES: SampleRegisterFile[] = [
  { sourceId: 'se-cadastre', country: 'SE', fileName: 'fastighetsindelning_sverige.gpkg', write: (context) => writeLayerInTurns(context.path, CADASTRE_LAYER, context, cadastreRows) },
  { sourceId: 'se-address', country: 'SE', fileName: 'belagenhetsadresser_sverige.gpkg', write: (context) => writeLayerInTurns(context.path, ADDRESS_LAYER, context, addressRows) },
  { sourceId: 'se-building', country: 'SE', fileName: 'byggnad_sverige.gpkg', write: (context) => writeLayerInTurns(context.path, BUILDING_LAYER, context, buildingRows) },
];
