/** Helpers of the Swedish GeoPackage tests (no assertions here). */
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openInput } from '../../../sources/formats/open-input.js';
import { GeoPackageWriter, type GpkgColumnType } from '../../../sources/formats/geopackage-writer.js';
import type { WkbGeometry } from '../../../sources/formats/wkb.js';
import type { ParsedRecord, SourceAdapter } from '../../../sources/source-adapter.js';
import { REAL_SE_BUILDINGS_GEOJSON } from '../../support/real-data.js';

export const tempDir = () => mkdtemp(path.join(tmpdir(), 'nordprop-se-gpkg-'));

export type Row = Extract<ParsedRecord, { kind: 'row' }>;
export type Reject = Extract<ParsedRecord, { kind: 'reject' }>;

/** Parses a file as the stage activity does: openInput (zip or plain), then the adapter with the artifact path. */
export async function parseFile(source: SourceAdapter, filePath: string): Promise<{ rows: Row[]; rejects: Reject[] }> {
  const input = await openInput(filePath, source.zipEntry);
  const rows: Row[] = [];
  const rejects: Reject[] = [];
  for await (const batch of source.parse(input.stream, { fileName: input.fileName, artifactPath: filePath })) {
    for (const record of batch) (record.kind === 'row' ? rows : rejects).push(record as never);
  }
  return { rows, rejects };
}

export function rowObject(source: SourceAdapter, row: Row): Record<string, unknown> {
  return Object.fromEntries(source.stagingColumns.map((column, i) => [column.name, row.values[i]]));
}

/** A one-layer GeoPackage of the given rows: attributes by column name, geometry or raw blob. */
export function writeLayer(
  file: string,
  layer: { table: string; geometryColumn?: string; geometryType: string; srsId?: number; columns: Record<string, GpkgColumnType> },
  rows: { attributes: Record<string, string | number | boolean | null>; geometry: WkbGeometry | Buffer | null }[],
): string {
  const names = Object.keys(layer.columns);
  const writer = GeoPackageWriter.create(file, {
    table: layer.table, geometryColumn: layer.geometryColumn ?? 'geom', geometryType: layer.geometryType, srsId: layer.srsId ?? 3006,
    columns: names.map((name) => ({ name, type: layer.columns[name] })),
  });
  for (const row of rows) writer.add(names.map((name) => row.attributes[name] ?? null), row.geometry);
  writer.close();
  return file;
}

export const rectangle = (west: number, south: number, east: number, north: number) => [west, south, east, south, east, north, west, north, west, south];

/** The real Lantmäteriet buildings (14 MultiPolygons, EPSG:3006) as a `byggnad` GeoPackage with the GeoJSON's own columns. */
export function realByggnadGpkg(file: string): string {
  const collection = JSON.parse(readFileSync(REAL_SE_BUILDINGS_GEOJSON, 'utf8')) as {
    features: { properties: { objektidentitet: string; skapad: string; objekttypnr: number; objekttyp: string }; geometry: { coordinates: number[][][][] } }[];
  };
  return writeLayer(
    file,
    { table: 'byggnad', geometryType: 'MULTIPOLYGON', columns: { objektidentitet: 'TEXT', skapad: 'DATETIME', objekttypnr: 'INTEGER', objekttyp: 'TEXT' } },
    collection.features.map((f) => ({
      attributes: f.properties,
      geometry: { type: 'MultiPolygon', polygons: f.geometry.coordinates.map((rings) => rings.map((ring) => ring.flat())) },
    })),
  );
}
