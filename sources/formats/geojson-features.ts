import { pipeline, type Readable } from 'node:stream';
import { pick } from 'stream-json/filters/pick.js';
import { streamValues } from 'stream-json/streamers/stream-values.js';
import { parseSrid, SUPPORTED_SRIDS } from '../geo/reproject.js';
import { InputFormatError, readFailure } from './input-error.js';

/**
 * A GeoJSON FeatureCollection read as a stream with stream-json: one feature assembled at a
 * time, so a national boundary file never sits in memory whole. RFC 7946 files are WGS84
 * lon/lat; a file in another CRS names it in the (pre-RFC, GDAL-written) `crs` member, which
 * must come before the features. A file that is not JSON, not a FeatureCollection or in a CRS
 * nordprop does not know fails as a whole (InputFormatError); single features are the caller's
 * to check.
 */

export interface GeoJsonFeature {
  /** 1-based position of the feature in the collection. */
  position: number;
  properties: Record<string, unknown>;
  geometry: unknown;
  /** The feature as text, for a reject (cut to 2,000 characters). */
  raw: () => string;
  srid: number;
  /** Anything but a `"type": "Feature"` object (the caller rejects it). */
  malformed: string | null;
}

interface Picked {
  key: number;
  value: unknown;
}

function sridOfCrsMember(crs: unknown, label: string): number {
  const name = (crs as { properties?: { name?: unknown } } | null)?.properties?.name;
  let srid: number;
  try {
    srid = parseSrid(typeof name === 'string' ? name : null);
  } catch {
    throw new InputFormatError(`${label}: the crs member ${JSON.stringify(crs)} does not name an EPSG CRS`);
  }
  if (!SUPPORTED_SRIDS.includes(srid)) throw new InputFormatError(`${label}: EPSG:${srid} is not a supported coordinate reference system`);
  return srid;
}

export async function* readGeoJsonFeatures(input: Readable, label: string): AsyncGenerator<GeoJsonFeature> {
  // pipeline() destroys every stage when one fails, so the loop below sees the error.
  const values = pipeline(input, pick.withParserAsStream({ filter: /^(type|crs|features\.\d+)$/ }), streamValues.asStream(), () => undefined);
  let collection = false;
  let srid = 4326;
  let position = 0;
  try {
    for await (const { value } of values as AsyncIterable<Picked>) {
      if (typeof value === 'string') {
        if (value !== 'FeatureCollection') throw new InputFormatError(`${label} is a GeoJSON ${value}, not a FeatureCollection`);
        collection = true;
        continue;
      }
      const object = value as Record<string, unknown> | null;
      if (object && typeof object === 'object' && 'properties' in object && object.type === 'name') {
        if (position > 0) throw new InputFormatError(`${label}: the crs member comes after features; it must precede them`);
        srid = sridOfCrsMember(object, label);
        continue;
      }
      position += 1;
      const isFeature = object !== null && typeof object === 'object' && !Array.isArray(object) && object.type === 'Feature';
      const properties = isFeature && object.properties && typeof object.properties === 'object' ? (object.properties as Record<string, unknown>) : {};
      yield {
        position,
        properties,
        geometry: isFeature ? object.geometry : null,
        raw: () => JSON.stringify(value).slice(0, 2000),
        srid,
        malformed: isFeature ? null : `feature ${position} is not a GeoJSON Feature object`,
      };
    }
    if (!collection) throw new InputFormatError(`${label} is not a GeoJSON FeatureCollection (no "type": "FeatureCollection")`);
  } catch (error) {
    // stream-json's syntax errors carry no offset: the position is the last feature read.
    const at = position ? `after feature ${position}` : 'before its first feature';
    throw await readFailure(error, { input, label, problem: 'is not valid JSON (truncated or corrupt?)', at });
  }
}
