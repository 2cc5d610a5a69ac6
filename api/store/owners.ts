import type pg from 'pg';
import { partyJson } from './party.js';

/** Rights holders of the property as a whole: its own title holders and those of its sections. */
export async function fetchOwners(db: pg.Pool, country: string, cadastreId: string, withNames: boolean): Promise<unknown[]> {
  const result = await db.query(
    `SELECT json_strip_nulls(${partyJson('o', withNames, 'o.registered_at')}) AS owner
     FROM owner o
     WHERE o.country = $1 AND o.cadastre_id = ANY (ARRAY(SELECT $2::text UNION ALL SELECT cadastre_id FROM section WHERE country = $1 AND property_cadastre_id = $2))
     ORDER BY o.cadastre_id, o.registered_at NULLS LAST, o.owner_key`,
    [country, cadastreId],
  );
  return result.rows.map((row) => row.owner);
}
