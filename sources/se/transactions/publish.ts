import type pg from 'pg';
import type { ChangeCounts, MergeResult, PublishScope, StagingContext } from '../../source-adapter.js';
import { mergeTable, withHashJoins, type TableMerge } from '../../publish/merge-table.js';
import { stepTimer } from '../../publish/step-timer.js';

/**
 * Publishes the price register's sales: the transactions themselves, their buyers and sellers,
 * the title holders that follow from each property's latest registered transfer, and the names
 * of the people involved, which live only in `person`.
 */

const SOURCE = 'MAPPING_AUTHORITY_LAGFART';
const PARTY_RECORD = `jsonb_to_recordset(s.parties) AS p(role text, ordinal int, kind text, person_id text, name text, birth_year int,
  org_id text, org_name text, org_country text, share_numerator int, share_denominator int)`;
const ORG_SCHEME = `CASE WHEN p.org_id IS NOT NULL AND p.org_country = 'SE' THEN '0007' END`;

const TRANSACTION_MERGE: TableMerge = {
  liveTable: 'property_transaction',
  keyColumn: 'transaction_id',
  columns: {
    cadastre_id: 's.cadastre_id',
    registered_at: 's.registered_at',
    kind: 's.kind',
    price_amount: 's.price_amount',
    price_currency: `CASE WHEN s.price_amount IS NULL THEN NULL ELSE 'SEK' END`,
    share_numerator: 's.share_numerator',
    share_denominator: 's.share_denominator',
    source: `'${SOURCE}'`,
    register_kind: 's.register_kind',
    purchase_date: 's.purchase_date',
    object_type_code: 's.object_type_code',
    object_type_name: 's.object_type_name',
    taxation_unit_type_code: 's.taxation_unit_type_code',
    taxation_value: 's.taxation_value',
    taxation_year: 's.taxation_year',
    price_coefficient: 's.price_coefficient',
  },
};

const OWNER_MERGE: TableMerge = {
  liveTable: 'owner',
  keyColumn: 'owner_key',
  columns: {
    cadastre_id: 's.cadastre_id',
    kind: 's.kind',
    person_id: 's.person_id',
    birth_year: 's.birth_year',
    org_scheme: 's.org_scheme',
    org_id: 's.org_id',
    org_name: 's.org_name',
    org_country: 's.org_country',
    share_numerator: 's.share_numerator',
    share_denominator: 's.share_denominator',
    registered_at: 's.registered_at',
  },
};

async function rewriteParties(client: pg.PoolClient, stagingTable: string, runId: string): Promise<ChangeCounts> {
  // Parties of transactions that changed or left the register are rewritten from the snapshot.
  const removed = await withHashJoins(client, () =>
    client.query(
      `DELETE FROM transaction_party tp
       WHERE tp.country = 'SE'
         AND NOT EXISTS (SELECT 1 FROM property_transaction t WHERE t.country = 'SE' AND t.transaction_id = tp.transaction_id AND t.published_run_id <> $1)`,
      [runId],
    ),
  );
  const added = await client.query(
    `INSERT INTO transaction_party (country, transaction_id, role, ordinal, kind, person_id, birth_year, org_scheme, org_id, org_name, org_country, share_numerator, share_denominator)
     SELECT 'SE', s.transaction_id, p.role, p.ordinal, p.kind, p.person_id, p.birth_year, ${ORG_SCHEME}, p.org_id, p.org_name, p.org_country, p.share_numerator, p.share_denominator
     FROM ${stagingTable} s
     JOIN property_transaction t ON t.country = 'SE' AND t.transaction_id = s.transaction_id AND t.published_run_id = $1
     CROSS JOIN LATERAL ${PARTY_RECORD}`,
    [runId],
  );
  return { inserted: added.rowCount ?? 0, updated: 0, deleted: removed.rowCount ?? 0 };
}

/**
 * Title holders: the buyers of each property's latest registered transfer (by inskrivningsdag,
 * then köpedatum, then id). A buyer without a share of its own holds the transfer's share.
 */
async function mergeOwners(client: pg.PoolClient, stagingTable: string, scope: PublishScope, runId: string): Promise<ChangeCounts> {
  await client.query(`DROP TABLE IF EXISTS pg_temp.se_owner_snapshot`);
  await client.query(
    `CREATE TEMP TABLE se_owner_snapshot ON COMMIT DROP AS
     WITH latest AS (
       SELECT DISTINCT ON (cadastre_id) * FROM ${stagingTable}
       ORDER BY cadastre_id, registered_at DESC, purchase_date DESC NULLS LAST, transaction_id DESC
     ),
     owners AS (
       SELECT s.cadastre_id || '#' || p.ordinal AS owner_key, s.cadastre_id, p.kind, p.person_id, p.birth_year, ${ORG_SCHEME} AS org_scheme,
              p.org_id, p.org_name, p.org_country,
              coalesce(p.share_numerator, s.share_numerator) AS share_numerator, coalesce(p.share_denominator, s.share_denominator) AS share_denominator,
              s.registered_at
       FROM latest s CROSS JOIN LATERAL ${PARTY_RECORD}
       WHERE p.role = 'BUYER'
     )
     SELECT o.*, md5(row(o.*)::text)::uuid AS row_hash FROM owners o`,
  );
  return mergeTable(client, 'pg_temp.se_owner_snapshot', OWNER_MERGE, scope, runId);
}

/** Names of the people in the snapshot (the latest spelling wins); people no longer named by any Swedish right leave. */
async function mergePeople(client: pg.PoolClient, stagingTable: string, runId: string): Promise<ChangeCounts> {
  await client.query(`DROP TABLE IF EXISTS pg_temp.se_person_snapshot`);
  await client.query(
    `CREATE TEMP TABLE se_person_snapshot ON COMMIT DROP AS
     SELECT DISTINCT ON (p.person_id) p.person_id, p.name, md5(p.name)::uuid AS row_hash
     FROM ${stagingTable} s CROSS JOIN LATERAL ${PARTY_RECORD}
     WHERE p.kind = 'PERSON'
     ORDER BY p.person_id, s.registered_at DESC, s.transaction_id DESC`,
  );
  const updated = await client.query(
    `UPDATE person live SET name = s.name, row_hash = s.row_hash, published_run_id = $1, updated_at = now()
     FROM pg_temp.se_person_snapshot s WHERE live.country = 'SE' AND live.person_id = s.person_id AND live.row_hash <> s.row_hash`,
    [runId],
  );
  const inserted = await client.query(
    `INSERT INTO person (country, person_id, name, row_hash, published_run_id)
     SELECT 'SE', s.person_id, s.name, s.row_hash, $1 FROM pg_temp.se_person_snapshot s
     WHERE NOT EXISTS (SELECT 1 FROM person live WHERE live.country = 'SE' AND live.person_id = s.person_id)`,
    [runId],
  );
  // The parties and owners were just rewritten in this transaction: their statistics are stale.
  const deleted = await withHashJoins(client, () =>
    client.query(
      `DELETE FROM person live
       WHERE live.country = 'SE'
         AND NOT EXISTS (SELECT 1 FROM transaction_party tp WHERE tp.country = 'SE' AND tp.person_id = live.person_id)
         AND NOT EXISTS (SELECT 1 FROM owner o WHERE o.country = 'SE' AND o.person_id = live.person_id)`,
    ),
  );
  return { inserted: inserted.rowCount ?? 0, updated: updated.rowCount ?? 0, deleted: deleted.rowCount ?? 0 };
}

export async function publishTransactions({ client, stagingTable, runId }: StagingContext, scope: PublishScope): Promise<MergeResult> {
  const { timed, steps } = stepTimer();
  const transactions = await timed('property_transaction', () => mergeTable(client, stagingTable, TRANSACTION_MERGE, scope, runId, { timer: { timed, steps } }));
  const parties = await timed('transaction_party', () => rewriteParties(client, stagingTable, runId));
  const owners = await timed('owner', () => mergeOwners(client, stagingTable, scope, runId));
  const people = await timed('person', () => mergePeople(client, stagingTable, runId));
  return { ...transactions, tables: { property_transaction: transactions, transaction_party: parties, owner: owners, person: people }, stepsMs: steps };
}
