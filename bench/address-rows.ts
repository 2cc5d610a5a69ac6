/**
 * Norway's addresses from the project's sample generator, written straight into the live
 * `address` table: the national profile's plan at a scale (1 = the 2.6 million addresses of
 * national size), each address rendered as its Matrikkelen Adresse CSV row and read back by the
 * `no-address` adapter's own row reader, so every column is what a publish would have written.
 * No pipeline run, no staging, no other register: the address search benchmark
 * (bench/address-search.ts) and its tests need only this table, and at national size it loads
 * in a few minutes instead of a whole refresh.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { CopyWriter } from '../lib/copy-writer.js';
import { samplePlans } from '../sample/plans.js';
import { parcelsOfPlan } from '../sample/parcels.js';
import { resolveSampleSize } from '../sample/profile.js';
import { ADDRESS_CSV_HEADER, addressCsvRow } from '../sample/write-address-csv.js';
import { AddressRowReader } from '../sources/no/address/parse.js';

export const ADDRESS_ROWS_RUN_ID = 'address-search-bench';

/** COPY text format: `\N` for null, backslash, tab and line breaks escaped. */
const copyValue = (value: unknown): string =>
  value === null || value === undefined ? '\\N' : String(value).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');

const COLUMNS = [
  'country', 'address_id', 'cadastre_id', 'municipality_code', 'municipality_name', 'address_type', 'street_code', 'street_name', 'house_number',
  'house_letter', 'sub_number', 'address_text', 'postal_code', 'postal_place', 'geom', 'source_srid', 'source_updated_at', 'row_hash', 'published_run_id',
];

export interface AddressRowsOptions {
  /** The national profile's fraction of national size, (0, 1]. */
  scale: number;
  seed?: string;
  /** Called every 100,000 addresses with the count so far. */
  onProgress?: (rows: number) => void;
}

/**
 * Appends the sample's Norwegian addresses to `address` (country NO) by one COPY; returns the
 * number written. The caller empties the table first if it wants only these, and ANALYZEs after.
 */
export async function loadSampleAddresses(pool: pg.Pool, options: AddressRowsOptions): Promise<number> {
  const size = resolveSampleSize({ profile: 'national', scale: options.scale });
  const { plan } = samplePlans(size, options.seed ?? 'bench');
  const reader = AddressRowReader.fromHeader(ADDRESS_CSV_HEADER.split(';'));
  const client = await pool.connect();
  let rows = 0;
  try {
    const copy = new CopyWriter(client, `address (${COLUMNS.join(', ')})`);
    for (const parcel of parcelsOfPlan(plan)) {
      for (const address of parcel.addresses) {
        const [addressId, cadastreId, municipality, municipalityName, type, streetCode, streetName, number, letter, subNumber, text, postalCode, postalPlace, lon, lat, srid, updatedAt] =
          reader.read(addressCsvRow(address).split(';'));
        const values = [
          'NO', addressId, cadastreId, municipality, municipalityName, type, streetCode, streetName, number, letter, subNumber, text, postalCode, postalPlace,
          `SRID=4326;POINT(${lon} ${lat})`, srid, updatedAt,
        ];
        const hash = createHash('md5').update(values.join('\u0001')).digest('hex');
        values.push(`${hash.slice(0, 8)}-${hash.slice(8, 12)}-${hash.slice(12, 16)}-${hash.slice(16, 20)}-${hash.slice(20)}`, ADDRESS_ROWS_RUN_ID);
        if (copy.add(`${values.map(copyValue).join('\t')}\n`)) await copy.flush();
        rows++;
        if (options.onProgress && rows % 100_000 === 0) options.onProgress(rows);
      }
    }
    await copy.end();
  } finally {
    client.release();
  }
  return rows;
}
