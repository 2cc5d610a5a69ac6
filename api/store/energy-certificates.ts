import type pg from 'pg';

export async function fetchEnergyCertificates(db: pg.Pool, country: string, cadastreId: string): Promise<unknown[]> {
  const result = await db.query(
    `SELECT json_strip_nulls(json_build_object('buildingNumber', e.building_number, 'label', e.label, 'heatingGrade', e.heating_grade,
              'issuedDate', api_date(e.issued_date), 'validToDate', api_date(e.valid_to_date), 'source', e.source)) AS certificate
     FROM energy_certificate e WHERE e.country = $1 AND e.cadastre_id = $2
     ORDER BY e.issued_date DESC NULLS LAST, e.certificate_id`,
    [country, cadastreId],
  );
  return result.rows.map((row) => row.certificate);
}
