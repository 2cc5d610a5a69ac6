import type { CellValue, StagingColumn } from '../../source-adapter.js';

/**
 * `se-area` stages municipalities, postal code areas and land allocations in one table, keyed
 * by kind and code; the publish sends each kind to its live table.
 */
export const AREA_STAGING_COLUMNS = [
  { name: 'record_kind', type: 'text' },
  { name: 'record_key', type: 'text' },
  { name: 'municipality_code', type: 'text' },
  { name: 'name', type: 'text' },
  /** EWKT MultiPolygon in EPSG:4326 (municipalities). */
  { name: 'geom', type: 'geometry' },
  /** GeoJSON as delivered and its EPSG code (land allocations), converted by PostGIS at publish. */
  { name: 'geojson', type: 'text' },
  { name: 'geojson_srid', type: 'integer' },
  { name: 'area_m2', type: 'double precision' },
  { name: 'postal_code', type: 'text' },
  { name: 'purpose', type: 'text' },
  { name: 'status', type: 'text' },
  { name: 'price_amount', type: 'numeric' },
  { name: 'price_currency', type: 'text' },
  { name: 'announced_date', type: 'date' },
  { name: 'deadline_date', type: 'date' },
  { name: 'url', type: 'text' },
  { name: 'source_ref', type: 'text' },
] as const satisfies readonly StagingColumn[];

export type AreaStagingColumn = (typeof AREA_STAGING_COLUMNS)[number]['name'];
export type AreaRecordKind = 'MUNICIPALITY' | 'POSTAL_CODE' | 'LAND_ALLOCATION';

export function areaValues(kind: AreaRecordKind, values: Partial<Record<AreaStagingColumn, CellValue>>): CellValue[] {
  return AREA_STAGING_COLUMNS.map((column) => (column.name === 'record_kind' ? kind : values[column.name] ?? null));
}
