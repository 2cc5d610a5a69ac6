import type pg from 'pg';
import type { PageKey } from '../paging.js';
import { visibleBuildingNumber } from './visibility.js';

export interface PermitRow {
  applied: string;
  case_id: string;
  permit: unknown;
}

/**
 * One page of a property's building permit cases, newest application first (undated last); a
 * sandbox sees no number of a building on a property it may not see.
 */
export async function fetchBuildingPermits(
  db: pg.Pool, country: string, cadastreId: string, sandbox: boolean, after: PageKey | undefined, limit: number,
): Promise<PermitRow[]> {
  const result = await db.query(
    `SELECT api_date(coalesce(p.applied_date, DATE '0001-01-01')) AS applied, p.case_id,
            json_strip_nulls(json_build_object('caseId', p.case_id, 'caseNumber', p.case_number, 'buildingNumber', ${visibleBuildingNumber('$6::boolean', 'p.country', 'p.building_number')},
              'kind', p.kind, 'status', p.status, 'description', p.description,
              'appliedDate', api_date(p.applied_date), 'decidedDate', api_date(p.decided_date))) AS permit
     FROM building_permit p
     WHERE p.country = $1 AND p.cadastre_id = $2
       AND ($3::date IS NULL OR (coalesce(p.applied_date, DATE '0001-01-01'), p.case_id) < ($3::date, $4::text))
     ORDER BY coalesce(p.applied_date, DATE '0001-01-01') DESC, p.case_id DESC
     LIMIT $5`,
    [country, cadastreId, after?.[0] ?? null, after?.[1] ?? null, limit, sandbox],
  );
  return result.rows;
}
