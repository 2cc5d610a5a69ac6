import type { PointTransform } from './reproject.js';
import { degrees7 } from './degrees.js';

/**
 * Writes reprojected polygons as EWKT for COPY into a geometry column. Hand-written because it
 * runs for every vertex of every parcel and is a single string build; PostGIS does the parsing
 * and all geometry checks.
 */

function ring(flat: readonly number[], transform: PointTransform): string {
  let text = '(';
  for (let i = 0; i < flat.length; i += 2) {
    const [lon, lat] = transform(flat[i], flat[i + 1]);
    text += `${i ? ',' : ''}${degrees7(lon)} ${degrees7(lat)}`;
  }
  return `${text})`;
}

/** Polygons as rings of flat [x0, y0, x1, y1, …] arrays, first ring exterior. */
export function multiPolygonEwkt(polygons: readonly (readonly number[])[][], transform: PointTransform, srid = 4326): string {
  return `SRID=${srid};MULTIPOLYGON(${polygons.map((rings) => `(${rings.map((r) => ring(r, transform)).join(',')})`).join(',')})`;
}
