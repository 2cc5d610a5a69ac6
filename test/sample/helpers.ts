/** Shared helpers of the sample-generator tests (no assertions here). */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Feature, Polygon, Position } from 'geojson';
import yauzl from 'yauzl';
import { transformTo } from '../../sources/geo/reproject.js';
import type { Point, SampleParcel } from '../../sample/types.js';

export async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `nordprop-${prefix}-`));
}

/** Every entry of a zip: name to bytes (directories map to an empty buffer). */
export function readZip(path: string): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true }, (openError, zip) => {
      if (openError || !zip) return reject(openError);
      const entries = new Map<string, Buffer>();
      zip.on('error', reject);
      zip.on('end', () => resolve(entries));
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName.endsWith('/')) {
          entries.set(entry.fileName, Buffer.alloc(0));
          zip.readEntry();
          return;
        }
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('error', reject);
          stream.on('end', () => {
            entries.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

const toWgs84 = transformTo(25833);

export function pointToWgs84([east, north]: Point): Position {
  return toWgs84(east, north);
}

/** The parcel polygon (with holes) in WGS84 lon/lat, as a GeoJSON feature. */
export function parcelPolygonWgs84(parcel: SampleParcel): Feature<Polygon> {
  return {
    type: 'Feature',
    properties: {},
    geometry: { type: 'Polygon', coordinates: [parcel.exterior, ...parcel.holes].map((ring) => ring.map(pointToWgs84)) },
  };
}

/** The parcel polygon in its own UTM33 coordinates (for planar checks such as kinks). */
export function parcelPolygonUtm(parcel: SampleParcel): Feature<Polygon> {
  return { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [parcel.exterior, ...parcel.holes] } };
}

/** Independent shoelace (|area|) of a closed ring, for checking lagretBeregnetAreal. */
export function shoelace(ring: readonly Point[]): number {
  let sum = 0;
  for (let i = 0; i + 1 < ring.length; i++) {
    const [x1, y1] = ring[i];
    const [x2, y2] = ring[i + 1];
    sum += (x1 - ring[0][0]) * (y2 - ring[0][1]) - (x2 - ring[0][0]) * (y1 - ring[0][1]);
  }
  return Math.abs(sum) / 2;
}
