import type pg from 'pg';
import { lookupCoordinate } from '../../store/coordinate-lookup.js';
import { fetchBuildings } from './buildings.js';
import { propertyVisible } from './property.js';

export interface CoordinateAnswer {
  property?: Record<string, unknown>;
  buildings: unknown[];
  addresses: unknown[];
}

/**
 * The property whose parcel covers a WGS84 point (the store's lookup), its buildings (the subset
 * the coordinate response carries) and addresses. Outside every parcel, or on a property a
 * sandbox may not see: no property, empty arrays.
 */
export async function resolveCoordinate(db: pg.Pool, country: string, lat: number, lon: number, sandbox: boolean): Promise<CoordinateAnswer> {
  const found = await lookupCoordinate(db, country, lat, lon);
  const property = found.property;
  if (!property || (sandbox && !(await propertyVisible(db, country, property.cadastreId, true)))) return { buildings: [], addresses: [] };
  const buildings = await fetchBuildings(db, country, property.cadastreId, false);
  const addresses = property.addresses.map(withoutNulls);
  return { property: { ...withoutNulls(property), addresses }, buildings, addresses };
}

/** The lookup keeps SQL NULLs; the API omits absent fields. */
function withoutNulls<T extends object>(value: T): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => [k, v && typeof v === 'object' && !Array.isArray(v) ? withoutNulls(v) : v]),
  );
}
