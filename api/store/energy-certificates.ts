import type pg from 'pg';
import { visibleBuildingNumber } from './visibility.js';

/** The energy certificates of a property; a sandbox sees no number of a building on a property it may not see. */
export async function fetchEnergyCertificates(db: pg.Pool, country: string, cadastreId: string, sandbox: boolean): Promise<unknown[]> {
  const result = await db.query(
    `SELECT json_strip_nulls(json_build_object('buildingNumber', ${visibleBuildingNumber('$3::boolean', 'e.country', 'e.building_number')}, 'label', e.label, 'heatingGrade', e.heating_grade,
              'issuedDate', api_date(e.issued_date), 'validToDate', api_date(e.valid_to_date), 'source', e.source)) AS certificate
     FROM energy_certificate e WHERE e.country = $1 AND e.cadastre_id = $2
     ORDER BY e.issued_date DESC NULLS LAST, e.certificate_id`,
    [country, cadastreId, sandbox],
  );
  return result.rows.map((row) => row.certificate);
}
