import type pg from 'pg';

/**
 * Buildings on properties, with their register details, status history and floors. `full`
 * false gives the subset the coordinate response carries.
 */
export function buildingJson(full: boolean): string {
  const details = full
    ? `'statusHistory', (SELECT json_agg(json_build_object('status', h.status, 'changedDate', api_date(h.changed_date),
                              'registeredDate', api_date(h.registered_date), 'reason', h.reason) ORDER BY h.seq)
                         FROM building_status_history h WHERE h.country = b.country AND h.building_id = b.building_id),
       'floorDetails', (SELECT json_agg(json_build_object('floorNumber', f.floor_number, 'floorKind', f.floor_kind,
                              'usableAreaM2', f.usable_area_m2, 'roomCount', f.room_count, 'dwellingUnitCount', f.dwelling_unit_count)
                              ORDER BY f.floor_kind, f.floor_number)
                         FROM building_floor f WHERE f.country = b.country AND f.building_number = b.building_number),
       'waterSupply', d.water_supply, 'sewerage', d.sewerage,
       'energySources', to_json(d.energy_sources), 'heatingTypes', to_json(d.heating_types),
       'usageGroup', d.usage_group, 'registrationOrigin', d.registration_origin,
       'isCulturalHeritage', d.is_cultural_heritage, 'isSefrakRegistered', d.is_sefrak_registered,
       'elevation', CASE WHEN coalesce(d.base_elevation_m, d.highest_point_m, d.height_above_ground_m) IS NOT NULL THEN
          json_build_object('baseElevationM', d.base_elevation_m, 'highestPointM', d.highest_point_m, 'heightAboveGroundM', d.height_above_ground_m) END,
       'residentialUsableAreaM2', d.residential_usable_area_m2, 'otherUsableAreaM2', d.other_usable_area_m2,
       'dwellingUnitCount', d.dwelling_unit_count, 'hasLift', d.has_lift,`
    : '';
  return `json_strip_nulls(json_build_object(
       'buildingNumber', b.building_number,
       'buildingType', CASE WHEN b.building_type_code IS NOT NULL THEN json_build_object('code', b.building_type_code, 'name', b.building_type_name) END,
       'status', b.status, 'builtYear', d.built_year, 'floors', d.floors,
       'grossAreaM2', d.gross_area_m2, 'usableAreaM2', d.usable_area_m2, 'footprintM2', round(b.footprint_m2::numeric, 2)::float8,
       'builtOverAreaM2', d.built_over_area_m2,
       'builtOverAreaPct', round((coalesce(d.built_over_area_m2, b.footprint_m2) / nullif(plot.area_m2, 0) * 100)::numeric, 2)::float8,
       ${details}
       'location', api_location(b.location)))`;
}

/** FROM … WHERE of a property's buildings; `$country` / `$cadastreId` are SQL expressions. */
export const buildingsOf = (country: string, cadastreId: string) => `
FROM building b
LEFT JOIN building_detail d ON d.country = b.country AND d.building_number = b.building_number
LEFT JOIN LATERAL (
  SELECT sum(pa.area_m2) AS area_m2 FROM parcel_property pp JOIN parcel pa ON pa.country = pp.country AND pa.parcel_id = pp.parcel_id
  WHERE pp.country = b.country AND pp.cadastre_id = b.cadastre_id
) plot ON true
WHERE b.country = ${country} AND b.cadastre_id = ${cadastreId}`;

export const BUILDING_ORDER = 'b.is_main_building DESC NULLS LAST, b.building_number';

const buildingsSql = (full: boolean) => `
SELECT ${buildingJson(full)} AS building ${buildingsOf('$1', '$2')}
ORDER BY ${BUILDING_ORDER}`;

const FULL_SQL = buildingsSql(true);
const SUBSET_SQL = buildingsSql(false);

export async function fetchBuildings(db: pg.Pool, country: string, cadastreId: string, full = true): Promise<unknown[]> {
  const result = await db.query({ name: full ? 'api-buildings' : 'api-buildings-subset', text: full ? FULL_SQL : SUBSET_SQL, values: [country, cadastreId] });
  return result.rows.map((row) => row.building);
}
