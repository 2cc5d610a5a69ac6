import type pg from 'pg';
import type { ChangeCounts, MergeResult, PublishScope, SourceAdapter, StagingContext } from '../../source-adapter.js';
import { readJsonLines } from '../../formats/json-lines.js';
import { mergeTable, scopeFilter, withHashJoins, withKeyLookups, type TableMerge } from '../../publish/merge-table.js';
import { stepTimer } from '../../publish/step-timer.js';
import { rewriteChildren } from '../../publish/child-rows.js';
import { LAND_REGISTRY_STAGING_COLUMNS, recordToRow, type Grunnboksblad } from './parse.js';
import { inboxPath } from '../../inbox.js';
import { nationalByFileName } from '../../input-scope.js';

/** The exchange file's name, in the inbox or NORDPROP_INPUT_DIR (national: it replaces the whole country). */
export const LAND_REGISTRY_FILE_NAME = 'Grunnbok_0000_Norge.jsonl';

/**
 * The land register (grunnbok) from nordprop's JSON Lines exchange file (one grunnboksblad per
 * line; docs/exchange/no-land-registry.md). Publishes title holders (`owner`), registered
 * transfers (`property_transaction`, `transaction_party`) and the persons named in them
 * (`person`: names live only there, so the API joins them only for `owners.read`).
 *
 * Staging holds one row per blad; the publish explodes its JSON into one snapshot table per
 * live table (temporary, dropped at commit) and runs the shared key-and-hash merge on each, so
 * an unchanged blad writes nothing and a blad that left the file is deleted in its scope.
 */

const SOURCE_NAME = 'MAPPING_AUTHORITY_TINGLYSING';

const OWNER_MERGE: TableMerge = {
  liveTable: 'owner',
  keyColumn: 'owner_key',
  columns: Object.fromEntries(
    ['cadastre_id', 'kind', 'person_id', 'birth_year', 'org_scheme', 'org_id', 'org_name', 'org_country', 'share_numerator', 'share_denominator', 'registered_at'].map((c) => [c, `s.${c}`]),
  ),
};

const TRANSACTION_MERGE: TableMerge = {
  liveTable: 'property_transaction',
  keyColumn: 'transaction_id',
  columns: {
    ...Object.fromEntries(
      ['cadastre_id', 'registered_at', 'kind', 'register_kind', 'document_number', 'price_amount', 'price_currency', 'share_numerator', 'share_denominator'].map((c) => [c, `s.${c}`]),
    ),
    source: `'${SOURCE_NAME}'`,
  },
};

const PARTY_COLUMNS = 'kind text, person_id text, birth_year integer, org_scheme text, org_id text, org_name text, org_country text, share_numerator integer, share_denominator integer';

/** A date-only tinglysingsdato is the start of that day in Norway, whatever the session's time zone. */
const registeredAt = (column: string) =>
  `CASE WHEN length(${column}) = 10 THEN ${column}::date::timestamp AT TIME ZONE 'Europe/Oslo' ELSE ${column}::timestamptz END`;

async function snapshotTables(client: pg.PoolClient, stagingTable: string): Promise<void> {
  // The row hash covers everything published for the row (a transaction's parties included),
  // so a changed party rewrites its transaction and nothing else changes.
  await client.query(
    `CREATE TEMP TABLE land_registry_owner ON COMMIT DROP AS
     SELECT h.owner_key, h.kind, h.person_id, h.birth_year, h.org_scheme, h.org_id, h.org_name, h.org_country, h.share_numerator, h.share_denominator,
            ${registeredAt('h.registered_at')} AS registered_at, s.cadastre_id, s.municipality_code, md5(row(s.cadastre_id, h.*)::text)::uuid AS row_hash
     FROM ${stagingTable} s
     CROSS JOIN LATERAL jsonb_to_recordset(s.holders) AS h(owner_key text, ${PARTY_COLUMNS}, registered_at text)`,
  );
  await client.query(
    `CREATE TEMP TABLE land_registry_transaction ON COMMIT DROP AS
     SELECT t.transaction_id, s.cadastre_id, s.municipality_code, ${registeredAt('t.registered_at')} AS registered_at, t.kind, t.register_kind, t.document_number,
            t.price_amount, t.price_currency, t.share_numerator, t.share_denominator, t.parties,
            md5(row(s.cadastre_id, t.*)::text)::uuid AS row_hash
     FROM ${stagingTable} s
     CROSS JOIN LATERAL jsonb_to_recordset(s.transfers) AS t(transaction_id text, registered_at text, kind text, register_kind text,
       document_number text, price_amount numeric(16, 2), price_currency text, share_numerator integer, share_denominator integer, parties jsonb)`,
  );
  // A person named on several blad keeps the name of the last one in the file.
  await client.query(
    `CREATE TEMP TABLE land_registry_person ON COMMIT DROP AS
     SELECT DISTINCT ON (p.person_id) p.person_id, p.name, md5(p.name)::uuid AS row_hash
     FROM ${stagingTable} s CROSS JOIN LATERAL jsonb_to_recordset(s.persons) AS p(person_id text, name text)
     ORDER BY p.person_id, s.src_pos DESC`,
  );
  // Statistics only for the columns the merges join and compare on: ANALYZE of every column spent
  // seconds reading the transfers' party JSON, which no plan looks at (the row count comes either way).
  await client.query(`ANALYZE land_registry_owner (owner_key, row_hash)`);
  await client.query(`ANALYZE land_registry_transaction (transaction_id, row_hash)`);
  await client.query(`ANALYZE land_registry_person (person_id, row_hash)`);
}

/**
 * A night's candidates (StagingContext.removedKeys: only the changed blad were staged), collected
 * before its merges: the transactions whose parties it may rewrite or remove (those of the blad it
 * rewrites or removes, and those its snapshot holds, in case one moved between blad), and the
 * persons those parties and the blad's title holders name, who may be left unnamed. Without
 * them the parties' and persons' deletes compared every Norwegian party and person with the live
 * rows (3.5 and 2.2 s of a 14.1 s night at 0.25 x national, growing with the register, not with
 * the night).
 */
interface NightCandidates {
  transactions: string;
  persons: string;
}

async function collectNightCandidates(client: pg.PoolClient, stagingTable: string, removedKeys: string, country: string): Promise<NightCandidates> {
  const blad = `SELECT cadastre_id FROM ${removedKeys} UNION SELECT cadastre_id FROM ${stagingTable}`;
  await withKeyLookups(client, async () => {
    await client.query(
      `CREATE TEMP TABLE no_night_transaction ON COMMIT DROP AS
       SELECT t.transaction_id FROM property_transaction t WHERE t.country = $1 AND t.cadastre_id IN (${blad})
       UNION SELECT transaction_id FROM land_registry_transaction`,
      [country],
    );
    await client.query(
      `CREATE TEMP TABLE no_night_person ON COMMIT DROP AS
       SELECT o.person_id FROM owner o WHERE o.country = $1 AND o.cadastre_id IN (${blad}) AND o.person_id IS NOT NULL
       UNION SELECT p.person_id FROM no_night_transaction t JOIN transaction_party p ON p.country = $1 AND p.transaction_id = t.transaction_id
             WHERE p.person_id IS NOT NULL`,
      [country],
    );
  });
  await client.query('ANALYZE no_night_transaction, no_night_person');
  return { transactions: 'pg_temp.no_night_transaction', persons: 'pg_temp.no_night_person' };
}

/**
 * Parties of the transactions this run inserted or changed are rewritten; those of deleted
 * transactions go with them. On a night, only the candidates' parties are looked at, by key.
 */
function publishParties(client: pg.PoolClient, country: string, runId: string, night: NightCandidates | undefined): Promise<ChangeCounts> {
  return rewriteChildren(
    client,
    { table: 'transaction_party', parent: 'property_transaction', key: ['transaction_id'] },
    { country, runId, ...(night ? { night: [night.transactions] } : {}) },
    `INSERT INTO transaction_party (country, transaction_id, role, ordinal, ${PARTY_COLUMNS.replace(/ (text|integer)/g, '')})
     SELECT $1, s.transaction_id, p.role, p.ordinal, p.kind, p.person_id, p.birth_year, p.org_scheme, p.org_id, p.org_name, p.org_country,
            p.share_numerator, p.share_denominator
     FROM land_registry_transaction s
     JOIN property_transaction t ON t.country = $1 AND t.transaction_id = s.transaction_id AND t.published_run_id = $2
     CROSS JOIN LATERAL jsonb_to_recordset(s.parties) AS p(role text, ordinal integer, ${PARTY_COLUMNS})`,
  );
}

/**
 * Persons are not scoped by municipality: names change by hash, new persons are added, and a
 * person no title or transfer refers to any longer is removed (their name with them). On a night,
 * the snapshot's few persons are merged by key, and only the candidates may be removed.
 */
async function publishPersons(client: pg.PoolClient, country: string, runId: string, night: NightCandidates | undefined): Promise<ChangeCounts> {
  const byKey = <T>(work: () => Promise<T>) => (night ? withKeyLookups(client, work) : work());
  const updated = await byKey(() => client.query(
    `UPDATE person live SET name = s.name, row_hash = s.row_hash, published_run_id = $2, updated_at = now()
     FROM land_registry_person s WHERE live.country = $1 AND live.person_id = s.person_id AND live.row_hash <> s.row_hash`,
    [country, runId],
  ));
  const inserted = await byKey(() => client.query(
    `INSERT INTO person (country, person_id, name, row_hash, published_run_id, updated_at)
     SELECT $1, s.person_id, s.name, s.row_hash, $2, now() FROM land_registry_person s
     WHERE NOT EXISTS (SELECT 1 FROM person live WHERE live.country = $1 AND live.person_id = s.person_id)`,
    [country, runId],
  ));
  const unnamed = `NOT EXISTS (SELECT 1 FROM owner o WHERE o.country = live.country AND o.person_id = live.person_id)
         AND NOT EXISTS (SELECT 1 FROM transaction_party p WHERE p.country = live.country AND p.person_id = live.person_id)`;
  // The owners and parties were just rewritten in this transaction: their statistics are stale.
  const removed = night
    ? await withKeyLookups(client, () =>
      client.query(`DELETE FROM person live USING ${night.persons} c WHERE live.country = $1 AND live.person_id = c.person_id AND ${unnamed}`, [country]))
    : await withHashJoins(client, () => client.query(`DELETE FROM person live WHERE live.country = $1 AND ${unnamed}`, [country]));
  return { inserted: inserted.rowCount ?? 0, updated: updated.rowCount ?? 0, deleted: removed.rowCount ?? 0 };
}

/**
 * On a night that staged only the changed blad (StagingContext.removedKeys): the rows of `merge`'s
 * live table that belong to a blad the run rewrites or removes and that its snapshot no longer
 * has (a title holder gone from a changed blad, every transfer of a removed one).
 */
function replacedRows(context: StagingContext, merge: TableMerge, snapshot: string, country: string): string | undefined {
  const { removedKeys, stagingTable } = context;
  const { liveTable, keyColumn } = merge;
  return removedKeys && `
    SELECT live.${keyColumn} FROM ${liveTable} live
    WHERE live.country = '${country}'
      AND live.cadastre_id IN (SELECT cadastre_id FROM ${removedKeys} UNION ALL SELECT cadastre_id FROM ${stagingTable})
      AND NOT EXISTS (SELECT 1 FROM ${snapshot} s WHERE s.${keyColumn} = live.${keyColumn})`;
}

async function publishLandRegistry(context: StagingContext, scope: PublishScope): Promise<MergeResult> {
  const { client, stagingTable, runId } = context;
  const { timed, steps } = stepTimer();
  await timed('snapshot', () => snapshotTables(client, stagingTable));
  const night = context.removedKeys ? await timed('night_candidates', () => collectNightCandidates(client, stagingTable, context.removedKeys!, scope.country)) : undefined;
  const tables: Record<string, ChangeCounts> = {};
  const merge = (snapshot: string, tableMerge: TableMerge) =>
    mergeTable(client, snapshot, tableMerge, scope, runId, { removedKeysQuery: replacedRows(context, tableMerge, snapshot, scope.country) });
  tables.owner = await timed('owner', () => merge('land_registry_owner', OWNER_MERGE));
  tables.property_transaction = await timed('property_transaction', () => merge('land_registry_transaction', TRANSACTION_MERGE));
  tables.transaction_party = await timed('transaction_party', () => publishParties(client, scope.country, runId, night));
  tables.person = await timed('person', () => publishPersons(client, scope.country, runId, night));
  const total = (key: keyof ChangeCounts) => Object.values(tables).reduce((sum, counts) => sum + counts[key], 0);
  return { inserted: total('inserted'), updated: total('updated'), deleted: total('deleted'), tables, stepsMs: steps };
}

/** Blad in scope: the properties and sections with a title holder or a transfer. */
async function countLiveBlad(client: pg.PoolClient, scope: PublishScope): Promise<number> {
  const filter = scopeFilter('live', scope, 1);
  const result = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (
       SELECT cadastre_id FROM owner live WHERE ${filter.sql}
       UNION SELECT cadastre_id FROM property_transaction live WHERE ${filter.sql}) blad`,
    filter.params,
  );
  return result.rows[0].n;
}

export const noLandRegistry: SourceAdapter = {
  id: 'no-land-registry',
  country: 'NO',
  scopeOf: nationalByFileName,
  title: 'Kartverket grunnbok: title holders and registered transfers (nordprop JSON Lines exchange)',
  docs: 'docs/sources/no-land-registry.md',
  // The grunnbok has no open bulk download: the exchange file is produced by whoever holds
  // access (see docs/exchange/no-land-registry.md) and dropped into the inbox.
  get defaultInput() {
    return inboxPath(LAND_REGISTRY_FILE_NAME);
  },
  inputFileName: LAND_REGISTRY_FILE_NAME,
  zipEntry: /\.jsonl?$/i,
  stagingColumns: LAND_REGISTRY_STAGING_COLUMNS,
  lineRecords: { header: false },
  keyColumns: ['cadastre_id'],
  parse: (input, { fileName }) => readJsonLines<Grunnboksblad>(input, { feed: 'no-land-registry', label: fileName, toRow: (record) => recordToRow(record) }),
  countLive: countLiveBlad,
  publish: publishLandRegistry,
};

