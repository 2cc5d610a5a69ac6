import type pg from 'pg';
import type { PageKey } from '../paging.js';

/**
 * An area as the land-allocation list names it: a municipality (`0301`), a grunnkrets
 * (`grunnkrets:03010101`) or a postal code area (`postal-code:0150`).
 */
export interface AreaRef {
  kind: 'MUNICIPALITY' | 'GRUNNKRETS' | 'POSTAL_CODE';
  code: string;
}

export function parseAreaId(areaId: string): AreaRef | undefined {
  const municipality = /^(?:municipality:)?([0-9]{4})$/.exec(areaId);
  if (municipality) return { kind: 'MUNICIPALITY', code: municipality[1] };
  const grunnkrets = /^grunnkrets:([0-9]{8})$/.exec(areaId);
  if (grunnkrets) return { kind: 'GRUNNKRETS', code: grunnkrets[1] };
  const postal = /^postal-code:([0-9]{3} ?[0-9]{1,2})$/.exec(areaId);
  if (postal) return { kind: 'POSTAL_CODE', code: postal[1].replace(' ', '') };
  return undefined;
}

export async function areaKnown(db: pg.Pool, country: string, area: AreaRef): Promise<boolean> {
  const result =
    area.kind === 'MUNICIPALITY'
      ? await db.query(`SELECT 1 FROM municipality WHERE country = $1 AND code = $2`, [country, area.code])
      : await db.query(`SELECT 1 FROM area WHERE country = $1 AND area_kind = $2 AND area_code = $3`, [country, area.kind, area.code]);
  return result.rowCount === 1;
}

export interface LandAllocationRow {
  announced: string;
  allocation_id: string;
  allocation: unknown;
}

const AREA_COLUMN = { MUNICIPALITY: 'municipality_code', GRUNNKRETS: 'grunnkrets_code', POSTAL_CODE: 'postal_code' } as const;

/** One page of an area's land allocations, the newest announcement first (undated last). */
export async function fetchLandAllocations(db: pg.Pool, country: string, area: AreaRef, after: PageKey | undefined, limit: number): Promise<LandAllocationRow[]> {
  const result = await db.query(
    `SELECT api_date(coalesce(l.announced_date, DATE '0001-01-01')) AS announced, l.allocation_id,
            json_strip_nulls(json_build_object('id', l.allocation_id, 'title', l.title, 'purpose', l.purpose, 'status', l.status,
              'municipality', json_build_object('code', l.municipality_code, 'name', m.name),
              'grunnkretsCode', l.grunnkrets_code, 'postalCode', l.postal_code, 'areaM2', l.area_m2,
              'price', api_money(l.price_amount, l.price_currency), 'announcedDate', api_date(l.announced_date),
              'deadlineDate', api_date(l.deadline_date), 'url', l.url,
              'location', api_location(CASE WHEN l.geom IS NOT NULL THEN ST_PointOnSurface(l.geom) END))) AS allocation
     FROM land_allocation l
     LEFT JOIN municipality m ON m.country = l.country AND m.code = l.municipality_code
     WHERE l.country = $1 AND l.${AREA_COLUMN[area.kind]} = $2
       AND ($3::date IS NULL OR (coalesce(l.announced_date, DATE '0001-01-01'), l.allocation_id) < ($3::date, $4::text))
     ORDER BY coalesce(l.announced_date, DATE '0001-01-01') DESC, l.allocation_id DESC
     LIMIT $5`,
    [country, area.code, after?.[0] ?? null, after?.[1] ?? null, limit],
  );
  return result.rows;
}
