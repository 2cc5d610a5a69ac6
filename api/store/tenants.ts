import type pg from 'pg';

/** Companies with a registered business address on the property (derived nightly). */
export async function fetchTenants(db: pg.Pool, country: string, cadastreId: string): Promise<unknown[]> {
  const result = await db.query(
    `SELECT json_strip_nulls(json_build_object(
        'organization', json_build_object('organizationIdentifier', json_build_object('scheme', t.org_scheme, 'id', t.org_id), 'name', t.name, 'country', t.org_country),
        'verification', json_build_object('source', t.verification_source, 'confidence', t.confidence, 'lastSeenAt', api_timestamp(t.last_seen_at)),
        'employees', t.employees, 'naceCode', t.nace_code, 'naceName', t.nace_name, 'unitNumber', t.unit_number,
        'legalForm', t.legal_form, 'foundedDate', api_date(t.founded_date), 'movedInDate', api_date(t.moved_in_date),
        'website', t.website, 'isOwner', t.is_owner)) AS tenant
     FROM tenant t WHERE t.country = $1 AND t.cadastre_id = $2
     ORDER BY t.name, t.org_id`,
    [country, cadastreId],
  );
  return result.rows.map((row) => row.tenant);
}
