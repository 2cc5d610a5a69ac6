import type { CellValue, SourceAdapter } from '../../source-adapter.js';
import { readJsonLines, RecordError } from '../../formats/json-lines.js';
import { GeometryError, pointFromGeoJson } from '../../geo/geojson-geometry.js';
import { parseSrid } from '../../geo/reproject.js';
import { countLiveRows, type TableMerge } from '../../publish/merge-table.js';
import { publishInto } from '../../publish/single-table.js';
import { inboxPath } from '../../inbox.js';
import { nationalByFileName } from '../../input-scope.js';

/** The exchange file's name, in the inbox or NORDPROP_INPUT_DIR (national: it replaces the whole country). */
export const LAND_ALLOCATION_FILE_NAME = 'Tomtetildelinger_0000_Norge.jsonl';

/**
 * Land allocations (tomtetildelinger) from nordprop's JSON Lines exchange file, one per line
 * (docs/exchange/no-land-allocation.md). The API lists them per area (municipality,
 * grunnkrets or postal code): an allocation that names no grunnkrets or postal code but has a
 * position gets them from the area polygons covering it, so this source runs after those.
 */

interface Tomtetildeling {
  tildelingsid: string;
  kommunenummer: string;
  tittel: string;
  formål?: string;
  status: string;
  areal_m2?: number;
  pris?: { beløp: number; valuta: string };
  kunngjøringsdato?: string;
  søknadsfrist?: string;
  url?: string;
  grunnkretsnummer?: string;
  postnummer?: string;
  koordinatsystem?: string;
  posisjon?: unknown;
}

const STATUS: Record<string, string> = { Kunngjort: 'ANNOUNCED', 'Under behandling': 'IN_PROGRESS', Tildelt: 'ALLOCATED', Avsluttet: 'CLOSED' };

function allocationToRow(record: Tomtetildeling): CellValue[] {
  if (record.grunnkretsnummer && !record.grunnkretsnummer.startsWith(record.kommunenummer)) {
    throw new RecordError(`grunnkretsnummer ${record.grunnkretsnummer} does not lie in kommunenummer ${record.kommunenummer}`);
  }
  if (record.kunngjøringsdato && record.søknadsfrist && record.søknadsfrist < record.kunngjøringsdato) {
    throw new RecordError(`søknadsfrist ${record.søknadsfrist} is before kunngjøringsdato ${record.kunngjøringsdato}`);
  }
  let point: string | null = null;
  if (record.posisjon) {
    try {
      point = pointFromGeoJson(record.posisjon, parseSrid(record.koordinatsystem));
    } catch (error) {
      if (error instanceof GeometryError) throw new RecordError(`posisjon: ${error.message}`);
      throw error;
    }
  }
  return [
    `${record.kommunenummer}-${record.tildelingsid}`,
    record.kommunenummer,
    record.grunnkretsnummer ?? null,
    record.postnummer ?? null,
    record.tittel,
    record.formål ?? null,
    STATUS[record.status],
    record.areal_m2 ?? null,
    record.pris?.beløp ?? null,
    record.pris?.valuta ?? null,
    record.kunngjøringsdato ?? null,
    record.søknadsfrist ?? null,
    record.url ?? null,
    point,
  ];
}

/** The area of a kind covering the allocation's position, when the file names none. */
const coveringArea = (kind: string) =>
  `(SELECT a.area_code FROM area a WHERE a.country = 'NO' AND a.area_kind = '${kind}' AND s.geom IS NOT NULL AND ST_Covers(a.geom, s.geom) ORDER BY a.area_code LIMIT 1)`;

const ALLOCATION_MERGE: TableMerge = {
  liveTable: 'land_allocation',
  keyColumn: 'allocation_id',
  columns: {
    municipality_code: 's.municipality_code',
    grunnkrets_code: `coalesce(s.grunnkrets_code, ${coveringArea('GRUNNKRETS')})`,
    postal_code: `coalesce(s.postal_code, ${coveringArea('POSTAL_CODE')})`,
    title: 's.title',
    purpose: 's.purpose',
    status: 's.status',
    area_m2: 's.area_m2',
    price_amount: 's.price_amount',
    price_currency: 's.price_currency',
    announced_date: 's.announced_date',
    deadline_date: 's.deadline_date',
    url: 's.url',
    geom: 's.geom',
  },
};

export const noLandAllocation: SourceAdapter = {
  id: 'no-land-allocation',
  country: 'NO',
  scopeOf: nationalByFileName,
  title: 'Municipal land allocations (tomtetildelinger, nordprop JSON Lines exchange)',
  docs: 'docs/sources/no-land-allocation.md',
  // Municipalities announce allocations on their own sites; see docs/exchange/no-land-allocation.md.
  get defaultInput() {
    return inboxPath(LAND_ALLOCATION_FILE_NAME);
  },
  inputFileName: LAND_ALLOCATION_FILE_NAME,
  dependsOn: ['no-grunnkrets', 'no-postal-code'],
  zipEntry: /\.jsonl?$/i,
  stagingColumns: [
    { name: 'allocation_id', type: 'text' },
    { name: 'municipality_code', type: 'text' },
    { name: 'grunnkrets_code', type: 'text' },
    { name: 'postal_code', type: 'text' },
    { name: 'title', type: 'text' },
    { name: 'purpose', type: 'text' },
    { name: 'status', type: 'text' },
    { name: 'area_m2', type: 'double precision' },
    { name: 'price_amount', type: 'numeric(16, 2)' },
    { name: 'price_currency', type: 'text' },
    { name: 'announced_date', type: 'date' },
    { name: 'deadline_date', type: 'date' },
    { name: 'url', type: 'text' },
    { name: 'geom', type: 'geometry' },
  ],
  keyColumns: ['allocation_id'],
  parse: (input, { fileName }) =>
    readJsonLines<Tomtetildeling>(input, { feed: 'no-land-allocation', label: fileName, toRow: (record) => allocationToRow(record) }),
  countLive: (client, scope) => countLiveRows(client, 'land_allocation', scope),
  publish: publishInto(ALLOCATION_MERGE),
};
