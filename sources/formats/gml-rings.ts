/**
 * The rings of GML 3.2 surfaces as flat x,y arrays: a ring built from curve segments and
 * members, and the checks a ring must pass before it bounds a polygon.
 */

/** GML curve segments that are not straight lines: a ring holding one cannot be stored as a polygon. */
export const NON_LINEAR_SEGMENTS = new Set([
  'Arc', 'ArcString', 'ArcByBulge', 'ArcStringByBulge', 'ArcByCenterPoint', 'Circle', 'CircleByCenterPoint',
  'CubicSpline', 'BSpline', 'Bezier', 'Clothoid', 'OffsetCurve',
]);

/** Appends a curve segment, dropping its first point when it repeats the joint. */
export function appendSegment(target: number[], seg: number[]): void {
  let from = 0;
  const n = target.length;
  if (n >= 2 && seg.length >= 2 && target[n - 2] === seg[0] && target[n - 1] === seg[1]) from = 2;
  for (let i = from; i < seg.length; i++) target.push(seg[i]);
}

/** The x,y pairs in reverse order (a curve member with orientation="-"). */
export function reversePairs(pts: number[]): number[] {
  const out = new Array<number>(pts.length);
  for (let i = 0, j = pts.length - 2; j >= 0; i += 2, j -= 2) {
    out[i] = pts[j];
    out[i + 1] = pts[j + 1];
  }
  return out;
}

/** Why a ring cannot close a polygon (too few positions, not closed), or null. */
export function checkRing(ring: number[], label: string): string | null {
  const n = ring.length / 2;
  if (n < 4) return `${label} has ${n} positions; a closed ring needs at least 4`;
  const l = ring.length;
  if (ring[0] !== ring[l - 2] || ring[1] !== ring[l - 1]) {
    return `${label} is not closed (first point ${ring[0]} ${ring[1]} ≠ last point ${ring[l - 2]} ${ring[l - 1]})`;
  }
  return null;
}
