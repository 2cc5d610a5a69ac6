import type pg from 'pg';

export interface ZoningPlanRow {
  plan: Record<string, unknown>;
  municipalityCode: string;
  planId: string;
  documents: { id: string; kind: string; title: string; publishedDate?: string; mediaType?: string }[];
}

/**
 * Zoning plans whose area overlaps the property's parcels (proposed, adopted or repealed), the
 * newest adoption first. Documents come without their URL: the route signs one per request.
 */
export async function fetchZoningPlans(db: pg.Pool, country: string, cadastreId: string): Promise<ZoningPlanRow[]> {
  const result = await db.query(
    `SELECT z.municipality_code, z.plan_id,
            json_strip_nulls(json_build_object('planId', z.plan_id, 'name', z.name, 'status', z.status, 'purpose', z.purpose,
              'adoptedDate', api_date(z.adopted_date), 'municipality', json_build_object('code', z.municipality_code, 'name', m.name))) AS plan,
            coalesce((SELECT json_agg(json_strip_nulls(json_build_object('id', d.document_id, 'kind', d.kind, 'title', d.title,
                              'publishedDate', api_date(d.published_date), 'mediaType', d.media_type)) ORDER BY d.published_date NULLS LAST, d.document_id)
                      FROM zoning_plan_document d
                      WHERE d.country = z.country AND d.municipality_code = z.municipality_code AND d.plan_id = z.plan_id), '[]') AS documents
     FROM zoning_plan z
     LEFT JOIN municipality m ON m.country = z.country AND m.code = z.municipality_code
     WHERE z.country = $1 AND EXISTS (
       SELECT 1 FROM parcel_property pp JOIN parcel pa ON pa.country = pp.country AND pa.parcel_id = pp.parcel_id
       WHERE pp.country = $1 AND pp.cadastre_id = $2 AND ST_Intersects(z.geom, pa.geom) AND NOT ST_Touches(z.geom, pa.geom))
     ORDER BY z.adopted_date DESC NULLS LAST, z.plan_id`,
    [country, cadastreId],
  );
  return result.rows.map((row) => ({ plan: row.plan, municipalityCode: row.municipality_code, planId: row.plan_id, documents: row.documents }));
}

/** Where a plan document is fetched from, for the signed download route. */
export async function documentSource(db: pg.Pool, key: { country: string; municipalityCode: string; planId: string; documentId: string }): Promise<string | undefined> {
  const result = await db.query(
    `SELECT source_url FROM zoning_plan_document WHERE country = $1 AND municipality_code = $2 AND plan_id = $3 AND document_id = $4`,
    [key.country, key.municipalityCode, key.planId, key.documentId],
  );
  return result.rows[0]?.source_url;
}
