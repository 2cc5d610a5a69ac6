import type pg from 'pg';
import type { PageKey } from '../paging.js';
import { visibleTo } from './visibility.js';

export interface CompanyPropertyRow {
  country: string;
  cadastre_id: string;
  property: Record<string, unknown>;
}

/** One page of the properties a company holds title to, by country and cadastre id. */
export async function fetchCompanyProperties(
  db: pg.Pool, scheme: string, id: string, sandbox: boolean, after: PageKey | undefined, limit: number,
): Promise<CompanyPropertyRow[]> {
  const result = await db.query(
    `SELECT o.country, o.cadastre_id,
            json_strip_nulls(json_build_object('country', o.country, 'cadastreId', o.cadastre_id,
              'municipality', json_build_object('code', cadastre_municipality(o.cadastre_id), 'name', m.name),
              'propertyType', property_type(o.cadastre_id), 'share', api_share(o.share_numerator, o.share_denominator),
              'registeredAt', api_registered_at(o.registered_at, o.country))) AS property
     FROM (
       SELECT DISTINCT ON (country, cadastre_id) country, cadastre_id, share_numerator, share_denominator, registered_at
       FROM owner
       WHERE org_scheme = $1 AND org_id = $2
         AND ($4::text IS NULL OR (country, cadastre_id) > ($4::text, $5::text))
       ORDER BY country, cadastre_id, registered_at DESC NULLS LAST
     ) o
     LEFT JOIN municipality m ON m.country = o.country AND m.code = cadastre_municipality(o.cadastre_id)
     WHERE ${visibleTo('$3', 'o.country', 'o.cadastre_id')}
     ORDER BY o.country, o.cadastre_id
     LIMIT $6`,
    [scheme, id, sandbox, after?.[0] ?? null, after?.[1] ?? null, limit],
  );
  return result.rows;
}
