import type pg from 'pg';
import { visibleBuildingNumber } from './visibility.js';

/**
 * Environmental certifications (BREEAM and the like) of a property's buildings; a sandbox sees
 * no number of a building on a property it may not see.
 */
export async function fetchCertifications(db: pg.Pool, country: string, cadastreId: string, sandbox: boolean): Promise<unknown[]> {
  const result = await db.query(
    `SELECT json_strip_nulls(json_build_object('scheme', c.scheme, 'rating', c.rating, 'certifiedDate', api_date(c.certified_date),
              'certifiedAreaM2', c.certified_area_m2, 'buildingNumber', ${visibleBuildingNumber('$3::boolean', 'c.country', 'c.building_number')})) AS certification
     FROM certification c WHERE c.country = $1 AND c.cadastre_id = $2
     ORDER BY c.certified_date DESC NULLS LAST, c.certification_id`,
    [country, cadastreId, sandbox],
  );
  return result.rows.map((row) => row.certification);
}
