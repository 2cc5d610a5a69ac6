/**
 * Planar area of polygons given as rings of flat [x0, y0, x1, y1, …] coordinates, exterior
 * first: the shoelace formula, holes subtracted. In the file's own metric CRS (ETRS89/UTM,
 * SWEREF 99 TM) this equals PostGIS's ST_Area there, computed while the vertices stream past
 * instead of re-projecting every parcel in the database.
 */
function ringArea(flat: readonly number[]): number {
  let twice = 0;
  for (let i = 0; i + 3 < flat.length; i += 2) twice += flat[i] * flat[i + 3] - flat[i + 2] * flat[i + 1];
  return Math.abs(twice) / 2;
}

export function planarArea(polygons: readonly (readonly number[])[][]): number {
  let area = 0;
  for (const rings of polygons) {
    area += ringArea(rings[0]);
    for (let i = 1; i < rings.length; i++) area -= ringArea(rings[i]);
  }
  return area;
}
