/**
 * How alike a sale is to the property it is a comparable of, in [0, 1]: a weighted mean of five
 * component similarities, each in [0, 1] (docs/derived/comparables.md). The same formula as the
 * SQL function comparable_similarity (schema/1763900300000_comparable-similarity.sql), which
 * analysts can call; a test keeps the two equal.
 */
export interface Comparable {
  sizeM2: number;
  propertyType: string | null;
  buildingType: string | null;
  builtYear: number | null;
}

export const SIMILARITY_WEIGHTS = { distance: 0.35, size: 0.25, buildingType: 0.15, age: 0.15, propertyType: 0.1 } as const;

/** The first digit of a Norwegian bygningstype code, the objekttyp of a Swedish purpose. */
export function buildingClass(buildingType: string | null): string | null {
  if (buildingType === null) return null;
  const semicolon = buildingType.indexOf(';');
  return semicolon >= 0 ? buildingType.slice(0, semicolon) : buildingType.slice(0, 1);
}

export function similarity(distanceM: number, a: Comparable, b: Comparable): number {
  return similarityOfClasses(distanceM, a, b, buildingClass(a.buildingType), buildingClass(b.buildingType));
}

/**
 * `similarity` with each side's buildingClass given: the comparables compare every property with
 * 32 sales, and each sale with thousands of properties, so each class is worked out once.
 */
export function similarityOfClasses(distanceM: number, a: Comparable, b: Comparable, aClass: string | null, bClass: string | null): number {
  const w = SIMILARITY_WEIGHTS;
  const distance = 1 / (1 + Math.max(distanceM, 0) / 750);
  const size = a.sizeM2 > 0 && b.sizeM2 > 0 ? Math.exp(-Math.abs(Math.log(a.sizeM2 / b.sizeM2)) / 0.35) : 0;
  const type =
    a.buildingType !== null && a.buildingType === b.buildingType ? 1
      : a.buildingType !== null && b.buildingType !== null && aClass === bClass ? 0.5
      : 0;
  const age = a.builtYear === null || b.builtYear === null ? 0.5 : Math.exp(-Math.abs(a.builtYear - b.builtYear) / 25);
  const property = a.propertyType !== null && a.propertyType === b.propertyType ? 1 : 0;
  const score = w.distance * distance + w.size * size + w.buildingType * type + w.age * age + w.propertyType * property;
  return Math.round(score * 1e4) / 1e4;
}
