import type pg from 'pg';
import type { ChangeCounts, MergeResult, PublishScope, StagingContext } from '../../source-adapter.js';
import { mergeTable, withHashJoins, withKeyLookups, type TableMerge } from '../../publish/merge-table.js';
import { isEmpty, withIndexesBuiltAfter } from '../../publish/indexes-after.js';
import { stepTimer } from '../../publish/step-timer.js';

/**
 * Publishes the price register's sales: the transactions themselves, their buyers and sellers,
 * the title holders that follow from each property's latest registered transfer, and the names
 * of the people involved, which the API serves only from `person`.
 *
 * A night stages only the sales whose line changed (`StagingContext.removedKeys` names the
 * sales gone), so what depends on other sales is worked out from live, not from staging: the
 * owners of the properties a staged or removed sale lies on (now or before), from their live
 * transfers and parties; the name of each person a staged or removed sale names, from every
 * sale's spelling (`party_name`). A full stage goes the same way over every property and person.
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

/**
 * A statement over every Swedish sale (a full stage) joins with hash joins only: the transfers
 * were just written in this transaction, and planned from statistics of a table analyzed empty
 * (a first load) the owners' join took a nested loop that read every party once per property
 * (over 80 s for 62,229 sales at 0.05 × national, where the whole load took 9.6 s). A night's
 * statements over a few properties or people look them up by key (withKeyLookups).
 */
function planned<T>(client: pg.PoolClient, wholeCountry: boolean, work: () => Promise<T>): Promise<T> {
  return wholeCountry ? withHashJoins(client, work) : withKeyLookups(client, work);
}

/** An insert into a table that holds nothing yet (a first load) builds its secondary indexes after it (withIndexesBuiltAfter). */
async function intoTable<T>(client: pg.PoolClient, table: string, insert: () => Promise<T>): Promise<T> {
  return (await isEmpty(client, table)) ? withIndexesBuiltAfter(client, table, insert) : insert();
}

/**
 * Before the merge, on a night: the properties whose latest transfer may change, those a staged
 * or removed sale lies on now or lay on before (a sale may move to another property).
 */
async function collectSaleProperties(client: pg.PoolClient, stagingTable: string, removedKeys: string): Promise<string> {
  await client.query(`DROP TABLE IF EXISTS pg_temp.se_sale_property`);
  await client.query(
    `CREATE TEMP TABLE se_sale_property ON COMMIT DROP AS
     SELECT cadastre_id FROM ${stagingTable}
     UNION
     SELECT t.cadastre_id FROM property_transaction t
     WHERE t.country = 'SE' AND t.transaction_id IN (SELECT transaction_id FROM ${stagingTable} UNION ALL SELECT transaction_id FROM ${removedKeys})`,
  );
  await client.query(`ANALYZE pg_temp.se_sale_property`);
  return 'pg_temp.se_sale_property';
}

/**
 * Parties of the transactions that changed or left the register are written again from staging.
 * A full stage finds those that left by what live lacks, and rewrites only the transactions whose
 * row changed; a night rewrites every staged transaction's (its line changed) and the removed ones'.
 */
async function rewriteParties(client: pg.PoolClient, stagingTable: string, runId: string, removedKeys: string | undefined): Promise<ChangeCounts> {
  const removed = removedKeys
    ? await withKeyLookups(client, () => client.query(
      `DELETE FROM transaction_party tp
       WHERE tp.country = 'SE' AND tp.transaction_id IN (SELECT transaction_id FROM ${stagingTable} UNION ALL SELECT transaction_id FROM ${removedKeys})`,
    ))
    : await withHashJoins(client, () =>
      client.query(
        `DELETE FROM transaction_party tp
         WHERE tp.country = 'SE'
           AND NOT EXISTS (SELECT 1 FROM property_transaction t WHERE t.country = 'SE' AND t.transaction_id = tp.transaction_id AND t.published_run_id <> $1)`,
        [runId],
      ),
    );
  const rewritten = removedKeys
    ? ''
    : `JOIN property_transaction t ON t.country = 'SE' AND t.transaction_id = s.transaction_id AND t.published_run_id = $1`;
  const insert = () => client.query(
    `INSERT INTO transaction_party (country, transaction_id, role, ordinal, kind, person_id, birth_year, org_scheme, org_id, org_name, org_country, share_numerator, share_denominator)
     SELECT 'SE', s.transaction_id, p.role, p.ordinal, p.kind, p.person_id, p.birth_year, ${ORG_SCHEME}, p.org_id, p.org_name, p.org_country, p.share_numerator, p.share_denominator
     FROM ${stagingTable} s ${rewritten}
     CROSS JOIN LATERAL ${PARTY_RECORD}`,
    removedKeys ? [] : [runId],
  );
  // A snapshot's insert joins the transactions this run wrote: hash joins (withHashJoins).
  const added = await intoTable(client, 'transaction_party', () => (removedKeys ? insert() : withHashJoins(client, insert)));
  return { inserted: added.rowCount ?? 0, updated: 0, deleted: removed.rowCount ?? 0 };
}

/**
 * Each staged sale's spelling of its person parties replaces the one published before; the
 * spellings of sales gone go. On a night, the people whose spellings were deleted or written
 * are kept in a temporary table (returned), as the only people whose name may change; a full
 * stage works out every person.
 */
async function rewriteSpellings(
  client: pg.PoolClient,
  stagingTable: string,
  scope: PublishScope,
  removedKeys: string | undefined,
): Promise<{ people?: string; counts: ChangeCounts }> {
  const people = removedKeys && 'pg_temp.se_named_person';
  if (people) {
    await client.query(`DROP TABLE IF EXISTS ${people}`);
    await client.query(`CREATE TEMP TABLE se_named_person (person_id text NOT NULL) ON COMMIT DROP`);
  }
  const noting = (statement: string) => (people ? `WITH written AS (${statement} RETURNING person_id) INSERT INTO ${people} SELECT person_id FROM written` : statement);
  let deleted: number;
  if (!removedKeys && !scope.municipalities) {
    // The whole country staged: every spelling is written again.
    deleted = (await client.query(`DELETE FROM party_name WHERE country = 'SE'`)).rowCount ?? 0;
  } else {
    // Every staged sale is written again, not only those live changed: a sale whose row did not change keeps its spelling.
    const replaced = await planned(client, !removedKeys, () =>
      client.query(noting(`DELETE FROM party_name n WHERE n.country = 'SE' AND n.transaction_id IN (SELECT transaction_id FROM ${stagingTable})`)));
    const left = removedKeys
      ? await withKeyLookups(client, () => client.query(noting(`DELETE FROM party_name n WHERE n.country = 'SE' AND n.transaction_id IN (SELECT transaction_id FROM ${removedKeys})`)))
      : await withHashJoins(client, () => client.query(
        `DELETE FROM party_name n WHERE n.country = 'SE'
           AND NOT EXISTS (SELECT 1 FROM property_transaction t WHERE t.country = 'SE' AND t.transaction_id = n.transaction_id)`,
      ));
    deleted = (replaced.rowCount ?? 0) + (left.rowCount ?? 0);
  }
  // A person named twice in one sale keeps the spelling of their first part in it (buyers before sellers).
  const added = await intoTable(client, 'party_name', () => client.query(noting(
    `INSERT INTO party_name (country, transaction_id, person_id, name)
     SELECT DISTINCT ON (s.transaction_id, p.person_id) 'SE', s.transaction_id, p.person_id, p.name
     FROM ${stagingTable} s CROSS JOIN LATERAL ${PARTY_RECORD}
     WHERE p.kind = 'PERSON'
     ORDER BY s.transaction_id, p.person_id, p.role, p.ordinal`,
  )));
  if (people) await client.query(`ANALYZE ${people}`);
  return { ...(people ? { people } : {}), counts: { inserted: added.rowCount ?? 0, updated: 0, deleted } };
}

/**
 * Title holders: the buyers of each property's latest registered transfer (by inskrivningsdag,
 * then köpedatum, then id), read from live after the transfers were merged. A buyer without a
 * share of its own holds the transfer's share. With `properties` (a night), only those
 * properties' owners are worked out and replaced; otherwise every Swedish property's.
 */
async function mergeOwners(client: pg.PoolClient, scope: PublishScope, runId: string, properties: string | undefined): Promise<ChangeCounts> {
  await client.query(`DROP TABLE IF EXISTS pg_temp.se_owner_snapshot`);
  await planned(client, !properties, () => client.query(
    `CREATE TEMP TABLE se_owner_snapshot ON COMMIT DROP AS
     WITH latest AS (
       SELECT DISTINCT ON (t.cadastre_id) t.transaction_id, t.cadastre_id, t.share_numerator, t.share_denominator, t.registered_at
       FROM property_transaction t
       WHERE t.country = 'SE'${properties ? ` AND t.cadastre_id IN (SELECT cadastre_id FROM ${properties})` : ''}
       ORDER BY t.cadastre_id, t.registered_at DESC, t.purchase_date DESC NULLS LAST, t.transaction_id DESC
     ),
     owners AS (
       SELECT t.cadastre_id || '#' || p.ordinal AS owner_key, t.cadastre_id, p.kind, p.person_id, p.birth_year, p.org_scheme,
              p.org_id, p.org_name, p.org_country,
              coalesce(p.share_numerator, t.share_numerator) AS share_numerator, coalesce(p.share_denominator, t.share_denominator) AS share_denominator,
              t.registered_at
       FROM latest t JOIN transaction_party p ON p.country = 'SE' AND p.transaction_id = t.transaction_id AND p.role = 'BUYER'
     )
     SELECT o.*, md5(row(o.*)::text)::uuid AS row_hash FROM owners o`,
  ));
  await client.query(`ANALYZE pg_temp.se_owner_snapshot (owner_key, row_hash)`);
  // On a night, the owners of the recomputed properties that the snapshot no longer has leave;
  // every other property's owners stay as they are.
  const replacedOwners = properties && `
    SELECT live.owner_key FROM owner live
    WHERE live.country = 'SE' AND live.cadastre_id IN (SELECT cadastre_id FROM ${properties})
      AND NOT EXISTS (SELECT 1 FROM pg_temp.se_owner_snapshot s WHERE s.owner_key = live.owner_key)`;
  return mergeTable(client, 'pg_temp.se_owner_snapshot', OWNER_MERGE, scope, runId, replacedOwners ? { removedKeysQuery: replacedOwners } : {});
}

/**
 * A person's name is their spelling in their latest sale (by inskrivningsdag, then id). With
 * `people` (a night: those whose spellings this run changed), only they are worked out, else
 * every Swedish person; one no sale names any longer leaves, with their name.
 */
async function mergePeople(client: pg.PoolClient, runId: string, people: string | undefined): Promise<ChangeCounts> {
  const night = people !== undefined;
  await client.query(`DROP TABLE IF EXISTS pg_temp.se_person_snapshot`);
  await planned(client, !night, () => client.query(
    `CREATE TEMP TABLE se_person_snapshot ON COMMIT DROP AS
     SELECT DISTINCT ON (n.person_id) n.person_id, n.name, md5(n.name)::uuid AS row_hash
     FROM party_name n JOIN property_transaction t ON t.country = 'SE' AND t.transaction_id = n.transaction_id
     WHERE n.country = 'SE'${night ? ` AND n.person_id IN (SELECT person_id FROM ${people})` : ''}
     ORDER BY n.person_id, t.registered_at DESC, t.transaction_id DESC`,
  ));
  const updated = await planned(client, !night, () => client.query(
    `UPDATE person live SET name = s.name, row_hash = s.row_hash, published_run_id = $1, updated_at = now()
     FROM pg_temp.se_person_snapshot s WHERE live.country = 'SE' AND live.person_id = s.person_id AND live.row_hash <> s.row_hash`,
    [runId],
  ));
  const inserted = await planned(client, !night, () => client.query(
    `INSERT INTO person (country, person_id, name, row_hash, published_run_id)
     SELECT 'SE', s.person_id, s.name, s.row_hash, $1 FROM pg_temp.se_person_snapshot s
     WHERE NOT EXISTS (SELECT 1 FROM person live WHERE live.country = 'SE' AND live.person_id = s.person_id)`,
    [runId],
  ));
  const deleted = await planned(client, !night, () =>
    client.query(
      `DELETE FROM person live
       WHERE live.country = 'SE'${night ? ` AND live.person_id IN (SELECT person_id FROM ${people})` : ''}
         AND NOT EXISTS (SELECT 1 FROM party_name n WHERE n.country = 'SE' AND n.person_id = live.person_id)
         -- A store from before party_name whose first run is a regional extract has spellings for that region only.
         AND NOT EXISTS (SELECT 1 FROM transaction_party tp WHERE tp.country = 'SE' AND tp.person_id = live.person_id)
         AND NOT EXISTS (SELECT 1 FROM owner o WHERE o.country = 'SE' AND o.person_id = live.person_id)`,
    ),
  );
  return { inserted: inserted.rowCount ?? 0, updated: updated.rowCount ?? 0, deleted: deleted.rowCount ?? 0 };
}

export async function publishTransactions({ client, stagingTable, runId, removedKeys }: StagingContext, scope: PublishScope): Promise<MergeResult> {
  const { timed, steps } = stepTimer();
  const properties = removedKeys && (await timed('sale_properties', () => collectSaleProperties(client, stagingTable, removedKeys)));
  const transactions = await timed('property_transaction', () =>
    mergeTable(client, stagingTable, TRANSACTION_MERGE, scope, runId, { timer: { timed, steps }, ...(removedKeys ? { removedKeys } : {}) }));
  const parties = await timed('transaction_party', () => rewriteParties(client, stagingTable, runId, removedKeys));
  const spellings = await timed('party_name', () => rewriteSpellings(client, stagingTable, scope, removedKeys));
  const owners = await timed('owner', () => mergeOwners(client, scope, runId, properties));
  const people = await timed('person', () => mergePeople(client, runId, spellings.people));
  return {
    ...transactions,
    tables: { property_transaction: transactions, transaction_party: parties, party_name: spellings.counts, owner: owners, person: people },
    stepsMs: steps,
  };
}
