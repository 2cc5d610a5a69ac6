import type { CellValue, ParsedRecord, SourceAdapter } from '../../source-adapter.js';
import { readGeoPackageLayer, rawAttributes } from '../../formats/geopackage-input.js';
import { inboxPath } from '../../inbox.js';
import type { GeoPackageFeature } from '../../formats/geopackage.js';
import { transformTo } from '../../geo/reproject.js';
import { countLiveRows, type TableMerge } from '../../publish/merge-table.js';
import { publishInto } from '../../publish/single-table.js';
import { coveringCadastreSql } from '../covering-property.js';
import { isoTimestamp, paddedCode, text, wholeNumber } from '../geopackage-values.js';
import { stagedMunicipalities } from '../../input-scope.js';

/**
 * Lantmäteriet Belägenhetsadress (GeoPackage, layer `belagenhetsadress`, EPSG:3006 points).
 * The file has no link to the property: the publish joins each address to the property whose
 * parcel covers it (`se-cadastre` must have published; a refresh runs it first).
 */

const SWEREF99_TM = 3006;
const LAYER = 'belagenhetsadress';
const COLUMNS = [
  'belagenhetsadress_objektidentitet', 'adressplatstyp', 'adressomrade_faststalltnamn', 'gardsadressomrade_faststalltnamn',
  'adressplatsnummer', 'bokstavstillagg', 'lagestillagg', 'lagestillaggsnummer', 'avvikerfranstandarden',
  'avvikandeadressplatsbeteckning', 'kommunkod', 'kommunnamn', 'postnummer', 'postort', 'statusforbelagenhetsadress', 'versiongiltigfran',
];
const LAYER_SPEC = { layer: LAYER, srid: SWEREF99_TM, columns: COLUMNS };
const STATUSES = new Set(['Gällande', 'Reserverad']);
const LAGESTILLAGG = new Set(['U', 'UH', 'UV']);
const toWgs84 = transformTo(SWEREF99_TM);

const isSet = (value: unknown) => value === 1 || value === true || /^(1|true|ja)$/i.test(String(value ?? '').trim());

/**
 * The house number as Lantmäteriet's rules build it: adressplatsnummer + bokstavstillägg
 * [+ " " + lägestillägg + lägestilläggsnummer] (`12A U1`); a deviating designation
 * (`avvikerfranstandarden`) replaces all of it. Null for an address without a number.
 */
export function swedishHouseNumber(a: Record<string, unknown>): string | null {
  if (isSet(a.avvikerfranstandarden)) {
    const deviating = text(a.avvikandeadressplatsbeteckning);
    if (deviating === null) throw new Error('avvikerfranstandarden is set but avvikandeadressplatsbeteckning is empty');
    return deviating;
  }
  const number = text(a.adressplatsnummer);
  if (number === null) return null;
  const letter = text(a.bokstavstillagg) ?? '';
  const position = text(a.lagestillagg);
  if (position !== null && !LAGESTILLAGG.has(position.toUpperCase())) throw new Error(`lagestillagg "${position}" is not U, UH or UV`);
  const positionNumber = wholeNumber(a.lagestillaggsnummer);
  if (Number.isNaN(positionNumber)) throw new Error(`lagestillaggsnummer "${a.lagestillaggsnummer}" is not a whole number`);
  return `${number}${letter}${position ? ` ${position.toUpperCase()}${positionNumber ?? ''}` : ''}`;
}

/** Postnummer arrives as an integer: 5-digit text; 0 or empty means none. */
export function swedishPostalCode(value: unknown): string | null {
  const t = text(value);
  if (t === null || /^0+$/.test(t)) return null;
  const digits = t.replace(/\s/g, '');
  if (!/^\d{1,5}$/.test(digits) || Number(digits) < 10000) throw new Error(`postnummer "${t}" is not a 5-digit postal code`);
  return digits;
}

function addressRecord(feature: GeoPackageFeature): ParsedRecord {
  const a = feature.attributes;
  const reject = (reason: string): ParsedRecord => ({ kind: 'reject', position: feature.position, reason, raw: rawAttributes(feature) });
  if (feature.error) return reject(feature.error);
  const geometry = feature.geometry!;
  if ((geometry.type !== 'Point' && geometry.type !== 'MultiPoint') || geometry.points.length !== 2) return reject(`geometry is a ${geometry.type}, not one point`);
  const id = text(a.belagenhetsadress_objektidentitet);
  if (!id) return reject('belagenhetsadress_objektidentitet is empty');
  const kommunkod = paddedCode(a.kommunkod, 4);
  if (!kommunkod) return reject(`kommunkod "${a.kommunkod ?? ''}" is not a municipality code`);
  const status = text(a.statusforbelagenhetsadress);
  if (!status || !STATUSES.has(status)) return reject(`statusforbelagenhetsadress "${status ?? ''}" is not Gällande or Reserverad`);
  let houseNumber: string | null, postalCode: string | null;
  try {
    houseNumber = swedishHouseNumber(a);
    postalCode = swedishPostalCode(a.postnummer);
  } catch (error) {
    return reject((error as Error).message);
  }
  const street = text(a.adressomrade_faststalltnamn);
  const farm = text(a.gardsadressomrade_faststalltnamn);
  const addressText = [street, farm, houseNumber].filter((part) => part !== null).join(' ');
  if (!addressText) return reject('no street, farm or number: nothing to write as the address');
  // The live table splits the number for sorting: its leading digits, and the rest as written.
  const leading = houseNumber === null ? null : /^(\d+)(.*)$/.exec(houseNumber);
  const [lon, lat] = toWgs84(geometry.points[0], geometry.points[1]);
  const values: CellValue[] = [
    id,
    kommunkod,
    text(a.kommunnamn),
    text(a.adressplatstyp),
    street ?? farm,
    leading ? Number(leading[1]) : null,
    leading ? leading[2] || null : houseNumber,
    addressText,
    postalCode,
    text(a.postort),
    status,
    lon,
    lat,
    SWEREF99_TM,
    isoTimestamp(a.versiongiltigfran),
  ];
  return { kind: 'row', position: feature.position, values };
}

const ADDRESS_MERGE: TableMerge = {
  liveTable: 'address',
  keyColumn: 'address_id',
  columns: {
    cadastre_id: coveringCadastreSql('ST_SetSRID(ST_MakePoint(s.lon, s.lat), 4326)'),
    municipality_code: 's.municipality_code',
    municipality_name: 's.municipality_name',
    address_type: 's.address_type',
    street_name: 's.street_name',
    house_number: 's.house_number',
    house_letter: 's.house_letter',
    address_text: 's.address_text',
    postal_code: 's.postal_code',
    postal_place: 's.postal_place',
    status: 's.status',
    geom: 'ST_SetSRID(ST_MakePoint(s.lon, s.lat), 4326)',
    source_srid: 's.source_srid',
    source_updated_at: 's.source_updated_at',
  },
};

export const seAddress: SourceAdapter = {
  id: 'se-address',
  country: 'SE',
  scopeOf: stagedMunicipalities,
  title: 'Lantmäteriet Belägenhetsadress (GeoPackage)',
  docs: 'docs/sources/se-geodata.md',
  // Lantmäteriet delivers one zip per municipality behind a Geotorget order (docs/sources/se-geodata.md);
  // the operator's fetcher leaves the national file in the inbox. `backfill --input` loads one municipality.
  get defaultInput() {
    return inboxPath('belagenhetsadresser_sverige.gpkg');
  },
  inputFileName: 'belagenhetsadresser_sverige.gpkg',
  dependsOn: ['se-cadastre'],
  zipEntry: /\.gpkg$/i,
  stagingColumns: [
    { name: 'address_id', type: 'text' },
    { name: 'municipality_code', type: 'text' },
    { name: 'municipality_name', type: 'text' },
    { name: 'address_type', type: 'text' },
    { name: 'street_name', type: 'text' },
    { name: 'house_number', type: 'integer' },
    { name: 'house_letter', type: 'text' },
    { name: 'address_text', type: 'text' },
    { name: 'postal_code', type: 'text' },
    { name: 'postal_place', type: 'text' },
    { name: 'status', type: 'text' },
    { name: 'lon', type: 'double precision' },
    { name: 'lat', type: 'double precision' },
    { name: 'source_srid', type: 'integer' },
    { name: 'source_updated_at', type: 'timestamp' },
  ],
  keyColumns: ['address_id'],
  parse: (input, context) => readGeoPackageLayer(input, context, LAYER_SPEC, addressRecord),
  geoPackageRecords: LAYER_SPEC,
  countLive: (client, scope) => countLiveRows(client, 'address', scope),
  // The rows it writes are linked as they are written; the cadastre's publish re-links the rest.
  publish: publishInto(ADDRESS_MERGE),
};
