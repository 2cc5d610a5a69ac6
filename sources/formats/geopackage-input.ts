/**
 * A register GeoPackage as the stage activity hands it over: a byte stream of the data file
 * (a zip entry, or the download itself) plus the artifact's path. SQLite needs a file, so a
 * plain .gpkg download is opened where it lies, and a zipped one is extracted into the stage's
 * scratch folder (ParseContext.scratchDir; without one, a temporary folder of its own) and
 * removed afterwards. Never beside the artifact: for a file given by path, that is the
 * operator's folder.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ParseContext, ParsedRecord } from '../source-adapter.js';
import { readFailure } from './input-error.js';
import { GeoPackage, isSqliteFile, type GeoPackageFeature, type GeoPackageLayer } from './geopackage.js';

export interface GeoPackageFile {
  path: string;
  cleanup(): Promise<void>;
}

export async function geoPackageFile(input: Readable, context: ParseContext): Promise<GeoPackageFile> {
  if (context.artifactPath && isSqliteFile(context.artifactPath)) {
    input.destroy(); // the artifact is the GeoPackage itself; nothing to copy
    return { path: context.artifactPath, cleanup: async () => undefined };
  }
  const folder = context.scratchDir ?? (await mkdtemp(path.join(tmpdir(), 'nordprop-gpkg-')));
  const target = path.join(folder, path.basename(context.fileName));
  const cleanup = async () => {
    await rm(target, { force: true });
    if (!context.scratchDir) await rm(folder, { recursive: true, force: true });
  };
  try {
    await pipeline(input, createWriteStream(target));
  } catch (error) {
    await cleanup();
    // A damaged zip entry or tar member fails here, before SQLite sees the file.
    throw await readFailure(error, { input, label: context.fileName });
  }
  return { path: target, cleanup };
}

export interface LayerSpec {
  layer: string;
  /** The EPSG code the layer must be in. */
  srid: number;
  /** Attribute columns the adapter reads; a file without one of them fails. */
  columns: string[];
  /** Columns read when the layer has them (products and versions differ); absent ones read as NULL. */
  optionalColumns?: string[];
}

const BATCH = 500;

/** What to read from an open GeoPackage: a layer, its attribute columns, and how a feature becomes a staged record. */
export interface LayerReading {
  layer: GeoPackageLayer;
  columns: string[];
  toRecord: (feature: GeoPackageFeature, layer: GeoPackageLayer) => ParsedRecord;
}

/**
 * Opens the GeoPackage, lets `plan` choose the layer and columns (it may throw an
 * InputFormatError for a file without them), and yields the features as staged records in
 * batches. The file is closed (and an extracted copy removed) however the iteration ends.
 */
export async function* readGeoPackage(
  input: Readable,
  context: ParseContext,
  plan: (gpkg: GeoPackage) => LayerReading,
  batchSize = BATCH,
): AsyncGenerator<ParsedRecord[]> {
  const file = await geoPackageFile(input, context);
  try {
    const gpkg = GeoPackage.open(file.path, context.fileName);
    try {
      const { layer, columns, toRecord } = plan(gpkg);
      let batch: ParsedRecord[] = [];
      for (const feature of gpkg.features(layer, columns, context.keepPosition)) {
        batch.push(toRecord(feature, layer));
        if (batch.length >= batchSize) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length) yield batch;
    } finally {
      gpkg.close();
    }
  } finally {
    await file.cleanup();
  }
}

/** The layer `spec` names and the columns of it that are read (the optional ones the file has). */
export function plannedLayer(gpkg: GeoPackage, spec: LayerSpec): { layer: GeoPackageLayer; columns: string[] } {
  const layer = gpkg.layer(spec.layer, spec.srid);
  const present = (spec.optionalColumns ?? []).filter((column) => layer.columns.includes(column));
  return { layer, columns: [...spec.columns, ...present] };
}

/** Reads the layer a register names (`spec`), one staged record per feature. */
export function readGeoPackageLayer(
  input: Readable,
  context: ParseContext,
  spec: LayerSpec,
  toRecord: (feature: GeoPackageFeature, layer: GeoPackageLayer) => ParsedRecord,
): AsyncGenerator<ParsedRecord[]> {
  return readGeoPackage(input, context, (gpkg) => ({ ...plannedLayer(gpkg, spec), toRecord }));
}

/** A feature's attributes as a reject's raw text (the geometry is left out: it is a blob). */
export const rawAttributes = (feature: GeoPackageFeature) => JSON.stringify({ fid: feature.position, ...feature.attributes });
