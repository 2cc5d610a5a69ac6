import type { CellValue, ChangeCounts, MergeResult, PublishScope, SourceAdapter, StagingContext } from '../../source-adapter.js';
import { RecordError, readJsonLines } from '../../formats/json-lines.js';
import { countLiveRows, mergeTable, type TableMerge } from '../../publish/merge-table.js';
import { rewriteChildren } from '../../publish/child-rows.js';
import { stepTimer } from '../../publish/step-timer.js';
import { formatCadastreId } from '../cadastre-id.js';
import { exchangeUnitOf, type ExchangeMatrikkel } from '../exchange-matrikkel.js';
import { inboxPath } from '../../inbox.js';
import { nationalByFileName } from '../../input-scope.js';

export const DETAIL_FILE_NAME = 'Matrikkel_0000_Norge_Bygningsdetaljer.jsonl';

/**
 * Matrikkel building, section and unit details. Kartverket publishes no open bulk file of
 * these, so nordprop defines a JSON Lines exchange format (schema/exchange/no-matrikkel-detail
 * .schema.json, docs/exchange/no-matrikkel-detail.md) with the Matrikkel's own field names:
 * one line per building (with its floors), section (eierseksjon) or unit (bruksenhet).
 * Publishes `building_detail` (+ `building_floor`), `section` and `unit`.
 *
 * Every record stages as one row (kind, key, municipality, cadastre id, and the record mapped
 * to the live columns' names as jsonb); each live table is merged from its kind's rows.
 */

interface Etasje { etasjeplan: 'H' | 'K' | 'L' | 'U'; etasjenummer: number; bruksarealTotalt?: number | null; antallRom?: number | null; antallBoenheter?: number | null }

interface BygningRecord {
  objekt: 'bygning';
  bygningsnummer: string;
  kommunenummer: string;
  matrikkelenhet?: ExchangeMatrikkel;
  byggeaar?: number | null;
  antallEtasjer?: number | null;
  bruttoarealTotalt?: number | null;
  bruksarealTotalt?: number | null;
  bruksarealTilBolig?: number | null;
  bruksarealTilAnnet?: number | null;
  bebygdAreal?: number | null;
  antallBoenheter?: number | null;
  harHeis?: boolean | null;
  vannforsyning?: string | null;
  avlop?: string | null;
  energikilder?: string[];
  oppvarming?: string[];
  bruksgruppe?: string | null;
  opprinnelse?: string | null;
  harKulturminne?: boolean | null;
  harSefrakminne?: boolean | null;
  hoyder?: { grunnhoyde?: number | null; hoyestePunkt?: number | null; hoydeOverTerreng?: number | null };
  etasjer?: Etasje[];
}

interface SeksjonRecord {
  objekt: 'seksjon';
  matrikkelenhet: ExchangeMatrikkel;
  sameiebrok: { teller: number; nevner: number };
  formaal?: string | null;
}

interface BruksenhetRecord {
  objekt: 'bruksenhet';
  bruksenhetId: string;
  bruksenhetsnummer: string;
  bygningsnummer?: string | null;
  matrikkelenhet: ExchangeMatrikkel;
  etasjenummer?: number | null;
  bruksareal?: number | null;
  bruttoareal?: number | null;
  primaerrom?: number | null;
  bruksenhetstype?: string | null;
  antallRom?: number | null;
  antallBad?: number | null;
  antallWC?: number | null;
  kjokkentilgang?: string | null;
  eierform?: string | null;
  energikarakter?: string | null;
  skalUtga?: boolean | null;
  adresseId?: string | null;
}

type DetailRecord = BygningRecord | SeksjonRecord | BruksenhetRecord;

/** The register's codes → the API's values (see the exchange doc for each list). */
const WATER: Record<string, string> = {
  OFFENTLIG_VANNVERK: 'PUBLIC', PRIVAT_VANNVERK: 'PRIVATE_WATERWORKS', PRIVAT_BRONN: 'PRIVATE_WELL', ANNEN_PRIVAT: 'OTHER_PRIVATE', IKKE_VANNFORSYNING: 'NONE',
};
const SEWERAGE: Record<string, string> = { OFFENTLIG_KLOAKK: 'PUBLIC', PRIVAT_KLOAKK: 'PRIVATE', INGEN_KLOAKK: 'NONE' };
const ENERGY: Record<string, string> = {
  ELEKTRISITET: 'ELECTRICITY', FJERNVARME: 'DISTRICT_HEATING', VARMEPUMPE: 'HEAT_PUMP', BIOBRENSEL: 'BIOFUEL', OLJE_PARAFIN: 'OIL',
  GASS: 'GAS', SOLENERGI: 'SOLAR', ANNEN_ENERGIKILDE: 'OTHER',
};
const HEATING: Record<string, string> = { ELEKTRISK: 'ELECTRIC', SENTRALVARME: 'CENTRAL', GULVVARME: 'UNDERFLOOR', ANNEN_OPPVARMING: 'OTHER' };
const USAGE: Record<string, string> = { BOLIG: 'RESIDENTIAL', FRITID: 'LEISURE', NAERING: 'COMMERCIAL', OFFENTLIG: 'PUBLIC', LANDBRUK: 'AGRICULTURAL', ANNET: 'OTHER' };
const ORIGIN: Record<string, string> = { ORDINAER_REGISTRERING: 'ORDINARY_REGISTRATION', ETTERREGISTRERING: 'RETROSPECTIVE_REGISTRATION', MIGRERT: 'MIGRATED' };
const FLOOR_KIND: Record<string, string> = { H: 'MAIN', U: 'GROUND', K: 'BASEMENT', L: 'ATTIC' };
const KITCHEN: Record<string, string> = { EGET_KJOKKEN: 'OWN_KITCHEN', FELLES_KJOKKEN: 'SHARED_KITCHEN', IKKE_KJOKKEN: 'NO_KITCHEN' };
const OWNERSHIP: Record<string, string> = { SELVEIER: 'FREEHOLD', BORETTSLAG: 'HOUSING_COOPERATIVE', AKSJE: 'SHARE', LEIE: 'RENTAL' };

const mapped = (table: Record<string, string>, code: string | null | undefined) => (code == null ? null : table[code]);

function bygningRow(r: BygningRecord): CellValue[] {
  const standsOn = r.matrikkelenhet ? exchangeUnitOf(r.matrikkelenhet, 'matrikkelenhet') : null;
  if (standsOn && standsOn.kommunenummer !== r.kommunenummer) {
    throw new RecordError(`matrikkelenhet is in kommune ${standsOn.kommunenummer}, the building in ${r.kommunenummer}`);
  }
  const floors = r.etasjer ?? [];
  const seen = new Set<string>();
  for (const floor of floors) {
    const key = `${floor.etasjeplan}${String(floor.etasjenummer).padStart(2, '0')}`;
    if (seen.has(key)) throw new RecordError(`floor ${key} is listed twice`);
    seen.add(key);
  }
  const detail = {
    built_year: r.byggeaar ?? null,
    floors: r.antallEtasjer ?? null,
    gross_area_m2: r.bruttoarealTotalt ?? null,
    usable_area_m2: r.bruksarealTotalt ?? null,
    residential_usable_area_m2: r.bruksarealTilBolig ?? null,
    other_usable_area_m2: r.bruksarealTilAnnet ?? null,
    built_over_area_m2: r.bebygdAreal ?? null,
    dwelling_unit_count: r.antallBoenheter ?? null,
    has_lift: r.harHeis ?? null,
    water_supply: mapped(WATER, r.vannforsyning),
    sewerage: mapped(SEWERAGE, r.avlop),
    energy_sources: r.energikilder ? r.energikilder.map((code) => ENERGY[code]) : null,
    heating_types: r.oppvarming ? r.oppvarming.map((code) => HEATING[code]) : null,
    usage_group: mapped(USAGE, r.bruksgruppe),
    registration_origin: mapped(ORIGIN, r.opprinnelse),
    is_cultural_heritage: r.harKulturminne ?? null,
    is_sefrak_registered: r.harSefrakminne ?? null,
    base_elevation_m: r.hoyder?.grunnhoyde ?? null,
    highest_point_m: r.hoyder?.hoyestePunkt ?? null,
    height_above_ground_m: r.hoyder?.hoydeOverTerreng ?? null,
    floor_details: floors.map((floor) => ({
      floor_number: floor.etasjenummer,
      floor_kind: FLOOR_KIND[floor.etasjeplan],
      usable_area_m2: floor.bruksarealTotalt ?? null,
      room_count: floor.antallRom ?? null,
      dwelling_unit_count: floor.antallBoenheter ?? null,
    })),
  };
  return ['bygning', r.bygningsnummer, r.kommunenummer, standsOn ? formatCadastreId(standsOn) : null, JSON.stringify(detail)];
}

function seksjonRow(r: SeksjonRecord): CellValue[] {
  const section = exchangeUnitOf(r.matrikkelenhet, 'matrikkelenhet');
  if (section.seksjonsnummer === 0) throw new RecordError('a seksjon needs a seksjonsnummer of 1 or more');
  if (r.sameiebrok.teller > r.sameiebrok.nevner) throw new RecordError(`sameiebrok ${r.sameiebrok.teller}/${r.sameiebrok.nevner} is more than the whole`);
  const detail = {
    property_cadastre_id: formatCadastreId({ ...section, seksjonsnummer: 0 }),
    section_number: String(section.seksjonsnummer),
    share_numerator: r.sameiebrok.teller,
    share_denominator: r.sameiebrok.nevner,
    use_type: r.formaal ?? null,
  };
  const id = formatCadastreId(section);
  return ['seksjon', id, section.kommunenummer, id, JSON.stringify(detail)];
}

function bruksenhetRow(r: BruksenhetRecord): CellValue[] {
  const unit = exchangeUnitOf(r.matrikkelenhet, 'matrikkelenhet');
  const detail = {
    unit_number: r.bruksenhetsnummer,
    building_number: r.bygningsnummer ?? null,
    floor: r.etasjenummer ?? null,
    usable_area_m2: r.bruksareal ?? null,
    gross_area_m2: r.bruttoareal ?? null,
    primary_room_area_m2: r.primaerrom ?? null,
    use_type: r.bruksenhetstype ?? null,
    room_count: r.antallRom ?? null,
    bathroom_count: r.antallBad ?? null,
    toilet_count: r.antallWC ?? null,
    kitchen_access: mapped(KITCHEN, r.kjokkentilgang),
    ownership_form: mapped(OWNERSHIP, r.eierform),
    energy_label: r.energikarakter ?? null,
    to_be_decommissioned: r.skalUtga ?? null,
    address_id: r.adresseId ?? null,
  };
  return ['bruksenhet', r.bruksenhetId, unit.kommunenummer, formatCadastreId(unit), JSON.stringify(detail)];
}

export function detailRow(record: DetailRecord): CellValue[] {
  switch (record.objekt) {
    case 'bygning': return bygningRow(record);
    case 'seksjon': return seksjonRow(record);
    case 'bruksenhet': return bruksenhetRow(record);
  }
}

/** Staged rows of one kind, under the live table's key name. */
const ofKind = (stagingTable: string, kind: string, key: string) =>
  `(SELECT record_key AS ${key}, municipality_code, ${key === 'cadastre_id' ? '' : 'cadastre_id, '}data, row_hash FROM ${stagingTable} WHERE record_kind = '${kind}')`;

const field = (name: string, type = 'text') => (type === 'text' ? `s.data->>'${name}'` : `(s.data->>'${name}')::${type}`);
const textArray = (name: string) => `CASE WHEN jsonb_typeof(s.data->'${name}') = 'array' THEN ARRAY(SELECT jsonb_array_elements_text(s.data->'${name}')) END`;

const DETAIL_MERGE: TableMerge = {
  liveTable: 'building_detail',
  keyColumn: 'building_number',
  columns: {
    cadastre_id: 's.cadastre_id',
    municipality_code: 's.municipality_code',
    built_year: field('built_year', 'integer'),
    floors: field('floors', 'integer'),
    gross_area_m2: field('gross_area_m2', 'double precision'),
    usable_area_m2: field('usable_area_m2', 'double precision'),
    residential_usable_area_m2: field('residential_usable_area_m2', 'double precision'),
    other_usable_area_m2: field('other_usable_area_m2', 'double precision'),
    built_over_area_m2: field('built_over_area_m2', 'double precision'),
    dwelling_unit_count: field('dwelling_unit_count', 'integer'),
    has_lift: field('has_lift', 'boolean'),
    water_supply: field('water_supply'),
    sewerage: field('sewerage'),
    energy_sources: textArray('energy_sources'),
    heating_types: textArray('heating_types'),
    usage_group: field('usage_group'),
    registration_origin: field('registration_origin'),
    is_cultural_heritage: field('is_cultural_heritage', 'boolean'),
    is_sefrak_registered: field('is_sefrak_registered', 'boolean'),
    base_elevation_m: field('base_elevation_m', 'double precision'),
    highest_point_m: field('highest_point_m', 'double precision'),
    height_above_ground_m: field('height_above_ground_m', 'double precision'),
  },
};

const SECTION_MERGE: TableMerge = {
  liveTable: 'section',
  keyColumn: 'cadastre_id',
  columns: {
    property_cadastre_id: field('property_cadastre_id'),
    section_number: field('section_number'),
    share_numerator: field('share_numerator', 'integer'),
    share_denominator: field('share_denominator', 'integer'),
    use_type: field('use_type'),
  },
};

const UNIT_MERGE: TableMerge = {
  liveTable: 'unit',
  keyColumn: 'unit_id',
  columns: {
    unit_number: field('unit_number'),
    building_number: field('building_number'),
    cadastre_id: 's.cadastre_id',
    floor: field('floor', 'integer'),
    usable_area_m2: field('usable_area_m2', 'double precision'),
    gross_area_m2: field('gross_area_m2', 'double precision'),
    primary_room_area_m2: field('primary_room_area_m2', 'double precision'),
    use_type: field('use_type'),
    room_count: field('room_count', 'integer'),
    bathroom_count: field('bathroom_count', 'integer'),
    toilet_count: field('toilet_count', 'integer'),
    kitchen_access: field('kitchen_access'),
    ownership_form: field('ownership_form'),
    energy_label: field('energy_label'),
    to_be_decommissioned: field('to_be_decommissioned', 'boolean'),
    address_id: field('address_id'),
  },
};

async function publishDetails(context: StagingContext, scope: PublishScope): Promise<MergeResult> {
  const { client, stagingTable, runId, removedKeys } = context;
  const { timed, steps } = stepTimer();
  // On a night that staged only changed lines, the keys of each kind whose line is gone.
  const removedOfKind = (kind: string, key: string) => removedKeys && `(SELECT record_key AS ${key} FROM ${removedKeys} WHERE record_kind = '${kind}')`;
  const merge = (kind: string, merge: TableMerge) =>
    timed(merge.liveTable, () =>
      mergeTable(client, ofKind(stagingTable, kind, merge.keyColumn), merge, scope, runId, { timer: { timed, steps }, removedKeys: removedOfKind(kind, merge.keyColumn) }));
  const details = await merge('bygning', DETAIL_MERGE);
  // The floors of the details this run wrote are rewritten; on a night, those of its staged and
  // removed details are reached by key.
  const floors = await timed('building_floor', () => rewriteChildren(
    client,
    { table: 'building_floor', parent: 'building_detail', key: ['building_number'] },
    {
      country: scope.country,
      runId,
      ...(removedKeys
        ? { night: [`(SELECT record_key AS building_number FROM ${stagingTable} WHERE record_kind = 'bygning')`, removedOfKind('bygning', 'building_number')!] }
        : {}),
    },
    `INSERT INTO building_floor (country, building_number, floor_number, floor_kind, usable_area_m2, room_count, dwelling_unit_count)
     SELECT $1, s.record_key, (f->>'floor_number')::integer, f->>'floor_kind', (f->>'usable_area_m2')::double precision,
            (f->>'room_count')::integer, (f->>'dwelling_unit_count')::integer
     FROM ${stagingTable} s
     JOIN building_detail d ON d.country = $1 AND d.building_number = s.record_key AND d.published_run_id = $2
     CROSS JOIN LATERAL jsonb_array_elements(s.data->'floor_details') AS f
     WHERE s.record_kind = 'bygning'`,
  ));
  const sections = await merge('seksjon', SECTION_MERGE);
  const units = await merge('bruksenhet', UNIT_MERGE);
  const sum = (key: keyof ChangeCounts) => details[key] + sections[key] + units[key];
  return {
    inserted: sum('inserted'),
    updated: sum('updated'),
    deleted: sum('deleted'),
    tables: { building_detail: details, building_floor: floors, section: sections, unit: units },
    stepsMs: steps,
  };
}

export const noMatrikkelDetail: SourceAdapter = {
  id: 'no-matrikkel-detail',
  country: 'NO',
  scopeOf: nationalByFileName,
  title: 'Matrikkel building, section and unit details (nordprop JSON Lines exchange format)',
  docs: 'docs/sources/no-matrikkel-detail.md',
  // No open bulk distribution exists: the operator fills the file from the Matrikkel API (docs/exchange/no-matrikkel-detail.md).
  get defaultInput() {
    return inboxPath(DETAIL_FILE_NAME);
  },
  inputFileName: DETAIL_FILE_NAME,
  zipEntry: /\.jsonl?$/i,
  stagingColumns: [
    { name: 'record_kind', type: 'text' },
    { name: 'record_key', type: 'text' },
    { name: 'municipality_code', type: 'text' },
    { name: 'cadastre_id', type: 'text' },
    { name: 'data', type: 'jsonb' },
  ],
  lineRecords: { header: false },
  keyColumns: ['record_kind', 'record_key'],
  parse: (input) => readJsonLines<DetailRecord>(input, { feed: 'no-matrikkel-detail', label: 'matrikkel detail file', toRow: detailRow }),
  async countLive(client, scope) {
    let total = 0;
    for (const table of ['building_detail', 'section', 'unit']) total += await countLiveRows(client, table, scope);
    return total;
  },
  publish: publishDetails,
};
