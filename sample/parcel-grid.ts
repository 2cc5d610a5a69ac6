/**
 * Parcel geometry: a jittered grid per municipality whose cells are the teigs.
 *
 * Every grid vertex and every edge's intermediate points are pure functions of the seed and
 * their grid position, so the two parcels on either side of an edge write exactly the same
 * coordinates: boundaries are shared, with no gaps or overlaps.
 *
 * Why the rings are always valid (simple, no self-intersection). With c the nominal cell size
 * and every column/row between 0.8c and 1.25c:
 * - corners move at most 0.09c in each axis; intermediate points sit at fractions 0.3–0.7 along
 *   their edge and at most 0.04c off it. So each side of a cell stays in a band of half-width
 *   0.09c around its grid line, opposite sides' bands are disjoint, and each side is monotone
 *   along its grid line (hence simple).
 * - two adjacent sides can only meet inside the corner's 0.18c square, where each consists of
 *   the single segment from the corner to its first intermediate point (or the next corner).
 *   That segment is flatter than 0.87 for the horizontal side and steeper than 1/0.87 for the
 *   vertical one, so the two meet only at the corner.
 * - the core rectangle 0.09c inside the grid lines is therefore always inside the teig; holes
 *   and addresses are put well inside it.
 */
import type { MunicipalityBlock, SamplePlan } from './plan.js';
import { Channel, noise } from './random.js';
import type { Point } from './types.js';

export const CORNER_JITTER = 0.09;
export const EDGE_OFFSET = 0.04;
/** Half the side of a hole, as a fraction of the nominal cell. */
export const HOLE_HALF_SIDE = 0.1;
/** Addresses stay this far (fraction of the nominal cell) inside the grid lines ... */
export const ADDRESS_MARGIN = 0.15;
/** ... and outside this half-width around a hole's centre. */
export const HOLE_CLEARANCE = 0.15;

export const round2 = (value: number): number => Math.round(value * 100) / 100;

export function gridVertex(plan: SamplePlan, block: MunicipalityBlock, row: number, col: number): Point {
  const key = block.municipality.ordinal;
  const jitter = CORNER_JITTER * block.cell;
  const dx = (noise(plan.seedHash, Channel.vertexX, key, row, col) * 2 - 1) * jitter;
  const dy = (noise(plan.seedHash, Channel.vertexY, key, row, col) * 2 - 1) * jitter;
  return [round2(block.originEast + block.colOffsets[col] + dx), round2(block.originNorth + block.rowOffsets[row] + dy)];
}

/** How many intermediate points an edge has: 0 (35%), 1 (45%) or 2 (20%). */
function intermediateCount(u: number): number {
  return u < 0.35 ? 0 : u < 0.8 ? 1 : 2;
}

/**
 * Intermediate points of the edge along a grid line, in increasing order along it.
 * `along0`/`length` locate the edge on its grid line, `across` is the line's position.
 */
function intermediates(
  plan: SamplePlan,
  block: MunicipalityBlock,
  horizontal: boolean,
  row: number,
  col: number,
): Point[] {
  const key = block.municipality.ordinal;
  const s = plan.seedHash;
  const C = horizontal
    ? { count: Channel.hEdgeCount, t1: Channel.hEdgeT1, t2: Channel.hEdgeT2, p1: Channel.hEdgeP1, p2: Channel.hEdgeP2 }
    : { count: Channel.vEdgeCount, t1: Channel.vEdgeT1, t2: Channel.vEdgeT2, p1: Channel.vEdgeP1, p2: Channel.vEdgeP2 };
  const n = intermediateCount(noise(s, C.count, key, row, col));
  if (n === 0) return [];
  const fractions =
    n === 1
      ? [0.4 + 0.2 * noise(s, C.t1, key, row, col)]
      : [0.3 + 0.15 * noise(s, C.t1, key, row, col), 0.55 + 0.15 * noise(s, C.t2, key, row, col)];
  const offsetsAcross = [noise(s, C.p1, key, row, col), noise(s, C.p2, key, row, col)].map((u) => (u * 2 - 1) * EDGE_OFFSET * block.cell);
  return fractions.map((t, i) => {
    if (horizontal) {
      const start = block.colOffsets[col], length = block.colOffsets[col + 1] - start;
      return [round2(block.originEast + start + t * length), round2(block.originNorth + block.rowOffsets[row] + offsetsAcross[i])];
    }
    const start = block.rowOffsets[row], length = block.rowOffsets[row + 1] - start;
    return [round2(block.originEast + block.colOffsets[col] + offsetsAcross[i]), round2(block.originNorth + start + t * length)];
  });
}

/** The closed, counter-clockwise exterior ring of the teig in grid cell (row, col). */
export function parcelExterior(plan: SamplePlan, block: MunicipalityBlock, row: number, col: number): Point[] {
  const ring: Point[] = [];
  ring.push(gridVertex(plan, block, row, col));
  ring.push(...intermediates(plan, block, true, row, col)); // bottom, west to east
  ring.push(gridVertex(plan, block, row, col + 1));
  ring.push(...intermediates(plan, block, false, row, col + 1)); // east side, south to north
  ring.push(gridVertex(plan, block, row + 1, col + 1));
  ring.push(...intermediates(plan, block, true, row + 1, col).reverse()); // top, east to west
  ring.push(gridVertex(plan, block, row + 1, col));
  ring.push(...intermediates(plan, block, false, row, col).reverse()); // west side, north to south
  ring.push(ring[0]);
  return ring;
}

export interface CellFrame {
  west: number;
  east: number;
  south: number;
  north: number;
  centreEast: number;
  centreNorth: number;
}

/** The undisturbed grid cell (before jitter). */
export function cellFrame(block: MunicipalityBlock, row: number, col: number): CellFrame {
  const west = block.originEast + block.colOffsets[col];
  const east = block.originEast + block.colOffsets[col + 1];
  const south = block.originNorth + block.rowOffsets[row];
  const north = block.originNorth + block.rowOffsets[row + 1];
  return { west, east, south, north, centreEast: (west + east) / 2, centreNorth: (south + north) / 2 };
}

/** A small square hole at the cell centre, closed and clockwise. */
export function holeRing(block: MunicipalityBlock, frame: CellFrame): Point[] {
  const h = HOLE_HALF_SIDE * block.cell;
  const w = round2(frame.centreEast - h), e = round2(frame.centreEast + h);
  const s = round2(frame.centreNorth - h), n = round2(frame.centreNorth + h);
  return [[w, s], [w, n], [e, n], [e, s], [w, s]];
}

/** Signed shoelace area of a closed ring (positive when counter-clockwise). */
export function ringArea(ring: readonly Point[]): number {
  // Relative to the first point: UTM products would otherwise lose centimetres.
  const [e0, n0] = ring[0];
  let twice = 0;
  for (let i = 1; i < ring.length; i++) {
    twice += (ring[i - 1][0] - e0) * (ring[i][1] - n0) - (ring[i][0] - e0) * (ring[i - 1][1] - n0);
  }
  return twice / 2;
}
