import type pg from 'pg';
import { partyJson } from './party.js';

/** The sections (eierseksjoner) dividing a property, each with its owners (always present). */
export async function fetchSections(db: pg.Pool, country: string, cadastreId: string, withNames: boolean): Promise<unknown[]> {
  const result = await db.query(
    `SELECT json_strip_nulls(json_build_object(
        'sectionNumber', s.section_number, 'cadastreId', s.cadastre_id,
        'share', api_share(s.share_numerator, s.share_denominator), 'useType', s.use_type,
        'owners', coalesce((SELECT json_agg(${partyJson('o', withNames, 'o.registered_at')} ORDER BY o.registered_at NULLS LAST, o.owner_key)
                            FROM owner o WHERE o.country = s.country AND o.cadastre_id = s.cadastre_id), '[]'))) AS section
     FROM section s
     WHERE s.country = $1 AND s.property_cadastre_id = $2
     ORDER BY length(s.section_number), s.section_number`,
    [country, cadastreId],
  );
  return result.rows.map((row) => row.section);
}
