import type pg from 'pg';
import { partyJson } from './party.js';

/**
 * Rights holders of the property as a whole: its own title holders, and those of its sections
 * with their share of the whole property: the section's share of the property (its sameiebrøk,
 * as /sections gives it) times the holder's share of the section, reduced. So the shares of a
 * sectioned property's owners add up to 1 where the register is complete. A holder of a section
 * whose share of the property is unknown has no share (it cannot be told). A section's holder
 * also says which section it holds (`section`: its number, cadastreId and the holder's share of
 * it, as /sections gives it), so one holder of two sections is told apart.
 */
export async function fetchOwners(db: pg.Pool, country: string, cadastreId: string, withNames: boolean): Promise<unknown[]> {
  const result = await db.query(
    `WITH holding AS (
       SELECT o.country, o.owner_key, o.cadastre_id, o.kind, o.person_id, o.birth_year, o.org_scheme, o.org_id, o.org_name, o.org_country,
              o.registered_at, o.share_numerator::bigint AS numerator, o.share_denominator::bigint AS denominator, '' AS section_order,
              NULL::text AS section_number, NULL::text AS section_id, NULL::integer AS section_share_numerator, NULL::integer AS section_share_denominator
       FROM owner o
       WHERE o.country = $1 AND o.cadastre_id = $2
       UNION ALL
       SELECT o.country, o.owner_key, o.cadastre_id, o.kind, o.person_id, o.birth_year, o.org_scheme, o.org_id, o.org_name, o.org_country,
              o.registered_at, o.share_numerator::bigint * s.share_numerator, o.share_denominator::bigint * s.share_denominator,
              lpad(s.section_number, 10, '0'), s.section_number, s.cadastre_id, o.share_numerator, o.share_denominator
       FROM section s JOIN owner o ON o.country = s.country AND o.cadastre_id = s.cadastre_id
       WHERE s.country = $1 AND s.property_cadastre_id = $2
     ), reduced AS (
       SELECT h.*, gcd(h.numerator, h.denominator) AS divisor FROM holding h
     ), o AS (
       SELECT r.*,
              CASE WHEN r.divisor > 0 AND r.numerator / r.divisor <= 2147483647 AND r.denominator / r.divisor <= 2147483647
                   THEN (r.numerator / r.divisor)::integer END AS share_numerator,
              CASE WHEN r.divisor > 0 AND r.numerator / r.divisor <= 2147483647 AND r.denominator / r.divisor <= 2147483647
                   THEN (r.denominator / r.divisor)::integer END AS share_denominator
       FROM reduced r
     )
     SELECT jsonb_strip_nulls(${partyJson('o', withNames, 'o.registered_at')}::jsonb
              || CASE WHEN o.section_id IS NOT NULL THEN jsonb_build_object('section', jsonb_build_object(
                   'sectionNumber', o.section_number, 'cadastreId', o.section_id,
                   'share', api_share(o.section_share_numerator, o.section_share_denominator)::jsonb)) ELSE '{}' END) AS owner
     FROM o
     ORDER BY o.section_order, o.registered_at NULLS LAST, o.owner_key`,
    [country, cadastreId],
  );
  return result.rows.map((row) => row.owner);
}
