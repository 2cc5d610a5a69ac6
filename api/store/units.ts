import type pg from 'pg';
import { visibleBuildingNumber, visibleTo } from './visibility.js';

/**
 * A unit's energy label: that of the newest certificate still valid (an energiattest lasts ten
 * years, and the unit's label has no date to say it lapsed) issued on the unit's building and
 * matrikkelenhet, for the unit itself (its bruksenhetsnummer) or, failing one, for no unit in
 * particular (non-residential buildings and single sections are certified as one); else the
 * label the matrikkel exchange file gave the unit. docs/sources/no-energy.md says why.
 */
const UNIT_ENERGY_LABEL = `COALESCE(
  (SELECT e.label FROM energy_certificate e
   WHERE e.country = u.country AND e.building_number = u.building_number AND e.label IS NOT NULL
     AND (e.valid_to_date IS NULL OR e.valid_to_date >= current_date)
     AND e.cadastre_id = u.cadastre_id AND (e.unit_number = u.unit_number OR e.unit_number IS NULL)
   ORDER BY e.unit_number IS NULL, e.issued_date DESC, e.issued_at DESC NULLS LAST, e.certificate_id DESC
   LIMIT 1),
  u.energy_label)`;

/**
 * Units (bruksenheter) of a property and of its sections, each with its own address. The
 * address and the building are rows of the property they stand on: for a sandbox, one on a
 * property it may not see is left out (api/store/visibility.ts).
 */
export async function fetchUnits(db: pg.Pool, country: string, cadastreId: string, sandbox: boolean): Promise<unknown[]> {
  const result = await db.query(
    `SELECT json_strip_nulls(json_build_object(
        'unitNumber', u.unit_number, 'buildingNumber', ${visibleBuildingNumber('$3::boolean', 'u.country', 'u.building_number')}, 'floor', u.floor,
        'usableAreaM2', u.usable_area_m2, 'grossAreaM2', u.gross_area_m2, 'primaryRoomAreaM2', u.primary_room_area_m2,
        'useType', u.use_type, 'cadastreId', u.cadastre_id, 'roomCount', u.room_count, 'bathroomCount', u.bathroom_count,
        'toiletCount', u.toilet_count, 'kitchenAccess', u.kitchen_access, 'ownershipForm', u.ownership_form,
        'energyLabel', ${UNIT_ENERGY_LABEL}, 'toBeDecommissioned', u.to_be_decommissioned,
        'address', (SELECT api_address(a) FROM address a WHERE a.country = u.country AND a.address_id = u.address_id
                     AND ${visibleTo('$3::boolean', 'a.country', 'a.cadastre_id')}))) AS unit
     FROM unit u
     WHERE u.country = $1 AND u.cadastre_id = ANY (ARRAY(SELECT $2::text UNION ALL SELECT cadastre_id FROM section WHERE country = $1 AND property_cadastre_id = $2))
     ORDER BY u.building_number NULLS LAST, u.unit_number, u.unit_id`,
    [country, cadastreId, sandbox],
  );
  return result.rows.map((row) => row.unit);
}
