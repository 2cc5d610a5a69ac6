import type pg from 'pg';
import { visibleBuildingNumber } from './visibility.js';

/**
 * The energy certificates of a property's buildings: those registered on the property or one
 * of its sections (Enova registers a flat's certificate on its section), those that name the
 * property among all it covers (a Swedish declaration may cover several fastigheter: its first
 * is `cadastre_id`, all of them `cadastre_ids`), and those whose building number is a building
 * standing on the property, whatever matrikkel number the certificate was registered under.
 * A sandbox sees no number of a building on a property it may not see.
 */
export async function fetchEnergyCertificates(db: pg.Pool, country: string, cadastreId: string, sandbox: boolean): Promise<unknown[]> {
  const result = await db.query(
    `SELECT json_strip_nulls(json_build_object('buildingNumber', ${visibleBuildingNumber('$3::boolean', 'e.country', 'e.building_number')}, 'label', e.label, 'heatingGrade', e.heating_grade,
              'issuedDate', api_date(e.issued_date), 'validToDate', api_date(e.valid_to_date), 'source', e.source)) AS certificate
     FROM energy_certificate e
     WHERE e.country = $1
       AND (e.cadastre_id = $2
            OR e.cadastre_ids @> ARRAY[$2::text]
            OR e.cadastre_id IN (SELECT s.cadastre_id FROM section s WHERE s.country = $1 AND s.property_cadastre_id = $2)
            OR e.building_number IN (SELECT b.building_number FROM building b WHERE b.country = $1 AND b.cadastre_id = $2))
     ORDER BY e.issued_date DESC NULLS LAST, e.certificate_id`,
    [country, cadastreId, sandbox],
  );
  return result.rows.map((row) => row.certificate);
}
