import type pg from 'pg';
import type { PageKey } from '../paging.js';
import { partyJson } from './party.js';

/** A transaction row (alias `t`) with its buyers and sellers in register order. */
export function transactionJson(withNames: boolean): string {
  const parties = (role: string) =>
    `coalesce((SELECT json_agg(${partyJson('tp', withNames)} ORDER BY tp.ordinal) FROM transaction_party tp
               WHERE tp.country = t.country AND tp.transaction_id = t.transaction_id AND tp.role = '${role}'), '[]')`;
  return `'id', t.transaction_id, 'registeredAt', api_registered_at(t.registered_at, t.country), 'kind', t.kind,
          'price', api_money(t.price_amount, t.price_currency), 'share', api_share(t.share_numerator, t.share_denominator),
          'buyers', ${parties('BUYER')}, 'sellers', ${parties('SELLER')}, 'source', t.source`;
}

export interface TransactionRow {
  registered_at: string;
  transaction_id: string;
  transaction: unknown;
}

/** One page, newest first; keyset on (registered_at, transaction_id), both descending. */
export async function fetchTransactions(
  db: pg.Pool, country: string, cadastreId: string, withNames: boolean, after: PageKey | undefined, limit: number,
): Promise<TransactionRow[]> {
  const result = await db.query(
    `SELECT t.registered_at::text AS registered_at, t.transaction_id, json_strip_nulls(json_build_object(${transactionJson(withNames)})) AS transaction
     FROM property_transaction t
     WHERE t.country = $1 AND t.cadastre_id = $2
       AND ($3::timestamptz IS NULL OR (t.registered_at, t.transaction_id) < ($3::timestamptz, $4::text))
     ORDER BY t.registered_at DESC, t.transaction_id DESC
     LIMIT $5`,
    [country, cadastreId, after?.[0] ?? null, after?.[1] ?? null, limit],
  );
  return result.rows;
}
