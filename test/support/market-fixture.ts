import type pg from 'pg';

/**
 * A small property market written straight into the live tables, for the comparables and
 * valuations tests: Norwegian properties placed in metres (EPSG:25833) with a parcel, a main
 * building (type, built year), its usable area (one unit) and their registered sales.
 */
export interface FixtureProperty {
  cadastreId: string;
  east: number;
  north: number;
  sizeM2: number;
  buildingType?: string;
  builtYear?: number | null;
  plotM2?: number;
}

export interface FixtureSale {
  id: string;
  cadastreId: string;
  day: string;
  price: number;
  share?: [number, number];
  kind?: string;
}

export async function insertProperties(db: pg.Pool, properties: FixtureProperty[]): Promise<void> {
  for (const p of properties) {
    const half = Math.sqrt(p.plotM2 ?? 900) / 2;
    const municipality = p.cadastreId.split('-')[0];
    await db.query(
      `INSERT INTO parcel (country, parcel_id, municipality_code, geom, area_m2, source_srid, row_hash, published_run_id)
       VALUES ('NO', $1, $2, ST_Multi(ST_Transform(ST_MakeEnvelope($3, $4, $5, $6, 25833), 4326)), $7, 25833, gen_random_uuid(), 'fixture')`,
      [`teig-${p.cadastreId}`, municipality, p.east - half, p.north - half, p.east + half, p.north + half, (2 * half) ** 2],
    );
    await db.query(`INSERT INTO parcel_property (country, parcel_id, cadastre_id, is_main_parcel) VALUES ('NO', $1, $2, true)`, [`teig-${p.cadastreId}`, p.cadastreId]);
    const number = `b-${p.cadastreId}`;
    await db.query(
      `INSERT INTO building (country, building_id, building_number, cadastre_id, municipality_code, building_type_code, is_main_building, geom, location, source_srid, row_hash, published_run_id)
       VALUES ('NO', $1, $1, $2, $3, $4, true, ST_Transform(ST_SetSRID(ST_MakePoint($5, $6), 25833), 4326), ST_Transform(ST_SetSRID(ST_MakePoint($5, $6), 25833), 4326), 25833, gen_random_uuid(), 'fixture')`,
      [number, p.cadastreId, municipality, p.buildingType ?? '111', p.east, p.north],
    );
    await db.query(
      `INSERT INTO building_detail (country, building_number, cadastre_id, built_year, usable_area_m2, row_hash, published_run_id)
       VALUES ('NO', $1, $2, $3, $4, gen_random_uuid(), 'fixture')`,
      [number, p.cadastreId, p.builtYear === undefined ? 1990 : p.builtYear, p.sizeM2],
    );
    await db.query(
      `INSERT INTO unit (country, unit_id, unit_number, building_number, cadastre_id, usable_area_m2, row_hash, published_run_id)
       VALUES ('NO', $1, 'H0101', $2, $3, $4, gen_random_uuid(), 'fixture')`,
      [`u-${p.cadastreId}`, number, p.cadastreId, p.sizeM2],
    );
  }
}

export async function insertSales(db: pg.Pool, sales: FixtureSale[]): Promise<void> {
  for (const s of sales) {
    await db.query(
      `INSERT INTO property_transaction (country, transaction_id, cadastre_id, registered_at, kind, price_amount, price_currency,
                                         share_numerator, share_denominator, source, row_hash, published_run_id)
       VALUES ('NO', $1, $2, ($3::date)::timestamp AT TIME ZONE 'Europe/Oslo', $4, $5, 'NOK', $6, $7, 'MAPPING_AUTHORITY_TINGLYSING', gen_random_uuid(), 'fixture')`,
      [s.id, s.cadastreId, s.day, s.kind ?? 'SALE', s.price, s.share?.[0] ?? null, s.share?.[1] ?? null],
    );
  }
}
