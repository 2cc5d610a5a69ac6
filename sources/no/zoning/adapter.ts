import type { CellValue, SourceAdapter } from '../../source-adapter.js';
import { readJsonLines, RecordError } from '../../formats/json-lines.js';
import { GeometryError, polygonsFromGeoJson } from '../../geo/geojson-geometry.js';
import { parseSrid } from '../../geo/reproject.js';
import { countKeyed, type KeyedMerge } from '../../publish/merge-keyed.js';
import { repairInvalidPolygons } from '../../publish/repair-polygons.js';
import { publishZoningPlans } from '../../publish/zoning-plans.js';
import { inboxPath } from '../../inbox.js';
import { nationalByFileName } from '../../input-scope.js';

/** The exchange file's name, in the inbox or NORDPROP_INPUT_DIR (national: it replaces the whole country). */
export const ZONING_FILE_NAME = 'Reguleringsplaner_0000_Norge.jsonl';

/**
 * Zoning plans (reguleringsplaner) from nordprop's JSON Lines exchange file, one plan per line
 * (docs/exchange/no-zoning.md): the plan with its area in EPSG:4326, its status normalized from
 * the SOSI planstatus code, its utilization rules (the input to utilization) and its documents.
 */

interface Arealplan {
  arealplanId: { kommunenummer: string; planidentifikasjon: string };
  plannavn: string;
  plantype?: number;
  planstatus: number;
  planformål?: string;
  ikrafttredelsesdato?: string;
  utnytting?: { utnyttingstype: '%-BYA' | 'BRA'; utnyttingstall: number }[];
  koordinatsystem: string;
  område: unknown;
  dokumenter?: { dokumentidentifikasjon: string; dokumenttype: string; dokumentnavn: string; publiseringsdato?: string; url: string; mediatype?: string }[];
}

/** SOSI Planstatus → the API's three states. Utgått/erstattet and overstyrt no longer apply, like a repealed plan. */
const STATUS: Record<number, 'PROPOSED' | 'ADOPTED' | 'REPEALED'> = { 1: 'PROPOSED', 2: 'PROPOSED', 3: 'ADOPTED', 4: 'REPEALED', 5: 'REPEALED', 6: 'ADOPTED', 8: 'REPEALED' };

const DOCUMENT_KIND: Record<string, string> = {
  Plankart: 'ZONING_PLAN',
  Planbestemmelser: 'ZONING_REGULATIONS',
  Planbeskrivelse: 'PLAN_DESCRIPTION',
  Vedtak: 'DECISION',
  Annet: 'OTHER',
};

function planToRow(plan: Arealplan): CellValue[] {
  const status = STATUS[plan.planstatus];
  if (status === 'ADOPTED' && !plan.ikrafttredelsesdato) throw new RecordError(`planstatus ${plan.planstatus} (adopted) needs an ikrafttredelsesdato`);
  const rules = new Map<string, number>();
  for (const rule of plan.utnytting ?? []) {
    if (rules.has(rule.utnyttingstype)) throw new RecordError(`utnytting ${rule.utnyttingstype} is given twice`);
    if (rule.utnyttingstype === '%-BYA' && rule.utnyttingstall > 100) throw new RecordError(`utnytting %-BYA ${rule.utnyttingstall} is over 100 %`);
    rules.set(rule.utnyttingstype, rule.utnyttingstall);
  }
  const documentIds = new Set<string>();
  const documents = (plan.dokumenter ?? []).map((document) => {
    if (documentIds.has(document.dokumentidentifikasjon)) throw new RecordError(`dokumenter: ${document.dokumentidentifikasjon} is listed twice`);
    documentIds.add(document.dokumentidentifikasjon);
    return {
      document_id: document.dokumentidentifikasjon,
      kind: DOCUMENT_KIND[document.dokumenttype],
      title: document.dokumentnavn,
      published_date: document.publiseringsdato ?? null,
      source_url: document.url,
      media_type: document.mediatype ?? null,
    };
  });
  const srid = parseSrid(plan.koordinatsystem);
  let polygons;
  try {
    polygons = polygonsFromGeoJson(plan.område, srid);
  } catch (error) {
    if (error instanceof GeometryError) throw new RecordError(`område: ${error.message}`);
    throw error;
  }
  return [
    plan.arealplanId.kommunenummer,
    plan.arealplanId.planidentifikasjon,
    plan.plannavn,
    status,
    plan.planstatus,
    plan.planformål ?? null,
    plan.ikrafttredelsesdato ?? null,
    rules.get('%-BYA') ?? null,
    rules.get('BRA') ?? null,
    polygons.ewkt,
    polygons.areaM2,
    srid,
    JSON.stringify(documents),
  ];
}

const ZONING_MERGE: KeyedMerge = {
  liveTable: 'zoning_plan',
  keys: { municipality_code: 's.municipality_code', plan_id: 's.plan_id' },
  columns: {
    name: 's.name',
    status: 's.status',
    status_code: 's.status_code',
    purpose: 's.purpose',
    adopted_date: 's.adopted_date',
    bya_pct: 's.bya_pct',
    bra_m2: 's.bra_m2',
    geom: 's.geom',
    area_m2: 'coalesce(s.area_m2, ST_Area(s.geom::geography))',
  },
};

export const noZoning: SourceAdapter = {
  id: 'no-zoning',
  country: 'NO',
  scopeOf: nationalByFileName,
  title: 'Municipal plan registers: zoning plans (nordprop JSON Lines exchange)',
  docs: 'docs/sources/no-zoning.md',
  // No national bulk download of plan registers: see docs/exchange/no-zoning.md for how the file is filled.
  get defaultInput() {
    return inboxPath(ZONING_FILE_NAME);
  },
  inputFileName: ZONING_FILE_NAME,
  zipEntry: /\.jsonl?$/i,
  stagingColumns: [
    { name: 'municipality_code', type: 'text' },
    { name: 'plan_id', type: 'text' },
    { name: 'name', type: 'text' },
    { name: 'status', type: 'text' },
    { name: 'status_code', type: 'integer' },
    { name: 'purpose', type: 'text' },
    { name: 'adopted_date', type: 'date' },
    { name: 'bya_pct', type: 'double precision' },
    { name: 'bra_m2', type: 'double precision' },
    { name: 'geom', type: 'geometry' },
    { name: 'area_m2', type: 'double precision' },
    { name: 'source_srid', type: 'integer' },
    { name: 'documents', type: 'jsonb' },
  ],
  keyColumns: ['municipality_code', 'plan_id'],
  parse: (input, { fileName }) => readJsonLines<Arealplan>(input, { feed: 'no-zoning', label: fileName, toRow: (plan) => planToRow(plan) }),
  repairStaged: (context) => repairInvalidPolygons(context),
  countLive: (client, scope) => countKeyed(client, ZONING_MERGE, scope),
  publish: (context, scope) => publishZoningPlans(context, scope, ZONING_MERGE),
};
