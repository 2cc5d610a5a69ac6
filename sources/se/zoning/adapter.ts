import type { CellValue, SourceAdapter } from '../../source-adapter.js';
import { readJsonLines, RecordError } from '../../formats/json-lines.js';
import { GeometryError, polygonsFromGeoJson, SWEDEN_ENVELOPE } from '../../geo/geojson-geometry.js';
import { countKeyed, type KeyedMerge } from '../../publish/merge-keyed.js';
import { repairInvalidPolygons } from '../../publish/repair-polygons.js';
import { publishZoningPlans } from '../../publish/zoning-plans.js';
import { inboxPath } from '../../inbox.js';
import { nationalByFileName } from '../../input-scope.js';

/** The exchange file's name, in the inbox or NORDPROP_INPUT_DIR (`0000`: national, it replaces every Swedish plan). */
export const SE_ZONING_FILE_NAME = 'detaljplaner_0000_sverige.jsonl';

/**
 * Swedish detaljplaner from nordprop's JSON Lines exchange file, one plan per line
 * (docs/sources/se-zoning.md): the plan area in SWEREF 99 TM, its status normalized to the
 * API's three states, its utilization provisions (the input to utilization) and its documents.
 */

type Status = 'påbörjad' | 'samråd' | 'granskning' | 'antagen' | 'lagakraftvunnen' | 'upphävd' | 'ersatt';

interface Detaljplan {
  planidentitet: { kommunkod: string; planbeteckning: string };
  objektidentitet?: string;
  namn: string;
  plantyp: string;
  status: Status;
  antagandedatum?: string;
  lagakraftdatum?: string;
  anvandning?: string;
  utnyttjandegrad?: { beteckning: string; typ: 'byggnadsarea_procent' | 'byggnadsarea_m2' | 'bruttoarea_m2'; varde: number }[];
  referenssystem: 'EPSG:3006';
  planomrade: unknown;
  dokument?: { dokumentid: string; typ: string; titel: string; publiceringsdatum?: string; url: string; mediatyp?: string }[];
}

/**
 * Only a plan that has gained legal force (laga kraft) is ADOPTED: an antagen plan can still be
 * appealed and builds nothing yet. A replaced plan no longer applies, like a repealed one.
 */
const STATUS: Record<Status, 'PROPOSED' | 'ADOPTED' | 'REPEALED'> = {
  påbörjad: 'PROPOSED',
  samråd: 'PROPOSED',
  granskning: 'PROPOSED',
  antagen: 'PROPOSED',
  lagakraftvunnen: 'ADOPTED',
  upphävd: 'REPEALED',
  ersatt: 'REPEALED',
};
/** States in which a plan has been in force, so may carry its lagakraftdatum. */
const HAS_BEEN_IN_FORCE = new Set<Status>(['lagakraftvunnen', 'upphävd', 'ersatt']);

const DOCUMENT_KIND: Record<string, string> = {
  plankarta: 'ZONING_PLAN',
  planbestammelser: 'ZONING_REGULATIONS',
  planbeskrivning: 'PLAN_DESCRIPTION',
  beslut: 'DECISION',
  ovrigt: 'OTHER',
};

function utilizationRules(plan: Detaljplan): Map<string, number> {
  const rules = new Map<string, number>();
  for (const rule of plan.utnyttjandegrad ?? []) {
    if (rules.has(rule.typ)) throw new RecordError(`utnyttjandegrad ${rule.typ} is given twice (${rule.beteckning})`);
    if (rule.typ === 'byggnadsarea_procent' && rule.varde > 100) throw new RecordError(`utnyttjandegrad ${rule.beteckning}: byggnadsarea ${rule.varde} % is over 100 %`);
    rules.set(rule.typ, rule.varde);
  }
  return rules;
}

function checkDates(plan: Detaljplan): void {
  if (plan.status === 'lagakraftvunnen' && !plan.lagakraftdatum) throw new RecordError('status lagakraftvunnen needs a lagakraftdatum');
  if (plan.lagakraftdatum && !HAS_BEEN_IN_FORCE.has(plan.status)) throw new RecordError(`status ${plan.status} has not gained legal force, yet lagakraftdatum ${plan.lagakraftdatum} is given`);
  if (plan.antagandedatum && plan.lagakraftdatum && plan.lagakraftdatum < plan.antagandedatum) {
    throw new RecordError(`lagakraftdatum ${plan.lagakraftdatum} is before antagandedatum ${plan.antagandedatum}`);
  }
}

function planToRow(plan: Detaljplan): CellValue[] {
  checkDates(plan);
  const rules = utilizationRules(plan);
  const documentIds = new Set<string>();
  const documents = (plan.dokument ?? []).map((document) => {
    if (documentIds.has(document.dokumentid)) throw new RecordError(`dokument: ${document.dokumentid} is listed twice`);
    documentIds.add(document.dokumentid);
    return {
      document_id: document.dokumentid,
      kind: DOCUMENT_KIND[document.typ],
      title: document.titel,
      published_date: document.publiceringsdatum ?? null,
      source_url: document.url,
      media_type: document.mediatyp ?? null,
    };
  });
  let polygons;
  try {
    polygons = polygonsFromGeoJson(plan.planomrade, 3006, SWEDEN_ENVELOPE);
  } catch (error) {
    if (error instanceof GeometryError) throw new RecordError(`planomrade: ${error.message}`);
    throw error;
  }
  return [
    plan.planidentitet.kommunkod,
    plan.planidentitet.planbeteckning,
    plan.namn,
    STATUS[plan.status],
    plan.anvandning ?? null,
    plan.lagakraftdatum ?? null,
    rules.get('byggnadsarea_procent') ?? null,
    rules.get('byggnadsarea_m2') ?? null,
    rules.get('bruttoarea_m2') ?? null,
    polygons.ewkt,
    polygons.areaM2,
    JSON.stringify(documents),
  ];
}

const SE_ZONING_MERGE: KeyedMerge = {
  liveTable: 'zoning_plan',
  keys: { municipality_code: 's.municipality_code', plan_id: 's.plan_id' },
  columns: {
    name: 's.name',
    status: 's.status',
    purpose: 's.purpose',
    adopted_date: 's.adopted_date',
    bya_pct: 's.bya_pct',
    bya_m2: 's.bya_m2',
    // Sweden's floor-area rule is bruttoarea (BTA); utilization says so in its basis.
    bra_m2: 's.bta_m2',
    geom: 's.geom',
    area_m2: 'coalesce(s.area_m2, ST_Area(s.geom::geography))',
  },
};

export const seZoning: SourceAdapter = {
  id: 'se-zoning',
  country: 'SE',
  scopeOf: nationalByFileName,
  title: 'Detaljplaner: plans, status, utilization provisions, plan areas (nordprop JSON Lines exchange)',
  docs: 'docs/sources/se-zoning.md',
  // Lantmäteriet's Detaljplan data set is served through the national geodata platform under an
  // agreement: the operator fills the exchange file (docs/sources/se-zoning.md) into the inbox.
  get defaultInput() {
    return inboxPath(SE_ZONING_FILE_NAME);
  },
  inputFileName: SE_ZONING_FILE_NAME,
  zipEntry: /\.jsonl?$/i,
  stagingColumns: [
    { name: 'municipality_code', type: 'text' },
    { name: 'plan_id', type: 'text' },
    { name: 'name', type: 'text' },
    { name: 'status', type: 'text' },
    { name: 'purpose', type: 'text' },
    { name: 'adopted_date', type: 'date' },
    { name: 'bya_pct', type: 'double precision' },
    { name: 'bya_m2', type: 'double precision' },
    { name: 'bta_m2', type: 'double precision' },
    { name: 'geom', type: 'geometry' },
    { name: 'area_m2', type: 'double precision' },
    { name: 'documents', type: 'jsonb' },
  ],
  keyColumns: ['municipality_code', 'plan_id'],
  parse: (input, { fileName }) => readJsonLines<Detaljplan>(input, { feed: 'se-zoning', label: fileName, toRow: (plan) => planToRow(plan) }),
  repairStaged: (context) => repairInvalidPolygons(context),
  countLive: (client, scope) => countKeyed(client, SE_ZONING_MERGE, scope),
  publish: (context, scope) => publishZoningPlans(context, scope, SE_ZONING_MERGE),
};
