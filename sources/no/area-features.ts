import type { Readable } from 'node:stream';
import type { CellValue, MergeResult, ParsedRecord, PublishScope, StagingColumn, StagingContext } from '../source-adapter.js';
import { readGeoJsonFeatures } from '../formats/geojson-features.js';
import { GeometryError, polygonsFromGeoJson } from '../geo/geojson-geometry.js';
import { mergeKeyed, type KeyedMerge } from '../publish/merge-keyed.js';

/**
 * What the three Norwegian area sources (municipalities, grunnkretser, postal code areas) share:
 * each reads one GeoJSON FeatureCollection of polygons named by the register's own property
 * names, and stages one row per area with its code, name, municipality and boundary.
 */

export const AREA_STAGING_COLUMNS: StagingColumn[] = [
  { name: 'area_code', type: 'text' },
  { name: 'name', type: 'text' },
  { name: 'municipality_code', type: 'text' },
  { name: 'geom', type: 'geometry' },
  // Planar area from the stream (UTM sources); the repair clears it so the publish re-measures.
  { name: 'area_m2', type: 'double precision' },
  { name: 'source_srid', type: 'integer' },
];

/** Why a feature's properties cannot be used (becomes the reject's reason). */
export class AreaPropertyError extends Error {}

export interface AreaIdentity {
  code: string;
  name: string | null;
  municipalityCode: string;
}

/** A register number that must be `digits` digits of text; a number that lost its leading zeros is padded back. */
export function registerNumber(value: unknown, digits: number, field: string): string {
  if (value === undefined || value === null || value === '') throw new AreaPropertyError(`${field} is missing`);
  const text = typeof value === 'number' && Number.isInteger(value) && value >= 0 ? String(value).padStart(digits, '0') : value;
  if (typeof text !== 'string' || !new RegExp(`^\\d{${digits}}$`).test(text)) {
    throw new AreaPropertyError(`${field} ${JSON.stringify(value)} is not ${digits} digits`);
  }
  return text;
}

/** A name property: text, or the list of language forms (`[{navn, sprak}]`) Kartverket's own GeoJSON uses, joined as `A - B`. */
export function nameProperty(value: unknown, field: string, required: boolean): string | null {
  if (typeof value === 'string' && value.trim()) return value.trim();
  if (Array.isArray(value)) {
    const names = value.map((entry) => (entry as { navn?: unknown })?.navn).filter((n): n is string => typeof n === 'string' && n.trim() !== '');
    if (names.length) return names.map((n) => n.trim()).join(' - ');
  }
  if (value === undefined || value === null) {
    if (required) throw new AreaPropertyError(`${field} is missing`);
    return null;
  }
  throw new AreaPropertyError(`${field} ${JSON.stringify(value)} is not a name`);
}

const BATCH = 200;

export async function* readAreaFeatures(
  input: Readable,
  label: string,
  identify: (properties: Record<string, unknown>) => AreaIdentity,
): AsyncGenerator<ParsedRecord[]> {
  let batch: ParsedRecord[] = [];
  for await (const feature of readGeoJsonFeatures(input, label)) {
    let record: ParsedRecord;
    try {
      if (feature.malformed) throw new AreaPropertyError(feature.malformed);
      const area = identify(feature.properties);
      const { ewkt, areaM2 } = polygonsFromGeoJson(feature.geometry, feature.srid);
      const values: CellValue[] = [area.code, area.name, area.municipalityCode, ewkt, areaM2, feature.srid];
      record = { kind: 'row', position: feature.position, values };
    } catch (error) {
      if (!(error instanceof AreaPropertyError || error instanceof GeometryError)) throw error;
      record = { kind: 'reject', position: feature.position, reason: error.message, raw: feature.raw() };
    }
    batch.push(record);
    if (batch.length >= BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
}

export type AreaKind = 'GRUNNKRETS' | 'POSTAL_CODE';

/** Measured in the source's UTM zone when it streamed one, on the ellipsoid otherwise. */
export const AREA_M2_SQL = 'coalesce(s.area_m2, ST_Area(s.geom::geography))';

/** `area` is shared by the grunnkrets and postal-code sources: each owns the rows of its kind. */
export function areaMerge(kind: AreaKind): KeyedMerge {
  return {
    liveTable: 'area',
    keys: { area_code: 's.area_code' },
    partition: { area_kind: kind },
    columns: { name: 's.name', municipality_code: 's.municipality_code', geom: 's.geom', area_m2: AREA_M2_SQL },
  };
}

export async function publishAreas({ client, stagingTable, runId }: StagingContext, kind: AreaKind, scope: PublishScope): Promise<MergeResult> {
  const counts = await mergeKeyed(client, stagingTable, areaMerge(kind), scope, runId);
  return { ...counts, tables: { area: counts } };
}
