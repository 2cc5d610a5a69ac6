/**
 * Publishes Enhetsregisteret units into `company` (scheme 0192) and `company_address`, from a
 * full download or from the updates feed. Written for this source rather than with the shared
 * mergeTable because three things differ:
 * - a full download holds one part of the table: `enheter` or `underenheter` (Brønnøysund
 *   publishes them as two files), so a snapshot replaces only the kind of unit it holds;
 * - a unit that leaves the register is kept with its deletion date (owners, transactions and
 *   past tenants still name it), not deleted; only the feed's `Fjernet` removes a unit;
 * - an increment upserts and deletes only what changed, and moves the feed cursor.
 * The row hash is taken over the published columns, so a unit loaded from the feed and later
 * from a full download with the same content is not rewritten.
 */
import { stat } from 'node:fs/promises';
import type pg from 'pg';
import type { ChangeCounts, MergeResult, PublishScope, StagingContext } from '../../source-adapter.js';
import { BUSINESS_SOURCE_ID, type BusinessFeedName, type FeedRange } from './feed.js';
import { withHashJoins } from '../../publish/merge-table.js';
import { sourceRunDownload } from '../../../lib/run-ledger.js';

export const ORG_SCHEME = '0192';
/** How far before its file's time a full download's snapshot may have been taken; the feed restarts there. */
const SNAPSHOT_MARGIN_MS = 24 * 3600 * 1000;

const CONTENT = ['is_sub_unit', 'name', 'parent_org_id', 'legal_form', 'nace_code', 'nace_name', 'employees', 'founded_date', 'registered_date', 'website', 'deleted_date'];
const contentHash = (alias: string) => `md5(row(${CONTENT.map((c) => `${alias}.${c}`).join(', ')}, ${alias}.addresses)::text)::uuid`;
/** A unit marked deleted no longer matches any staged hash, so if it comes back it is rewritten. */
const DELETED_HASH = `md5(live.row_hash::text || ' deleted')::uuid`;

const counts = (inserted = 0, updated = 0, deleted = 0): ChangeCounts => ({ inserted, updated, deleted });

/** Updates changed units and inserts new ones from `rows` (a table or subquery aliased `s`), then rewrites their addresses. */
async function upsertCompanies(client: pg.PoolClient, rows: string, runId: string): Promise<{ company: ChangeCounts; company_address: ChangeCounts }> {
  const updated = await client.query(
    `UPDATE company live
     SET ${CONTENT.map((c) => `${c} = s.${c}`).join(', ')}, row_hash = ${contentHash('s')}, published_run_id = $2, updated_at = now()
     FROM ${rows} s
     WHERE live.org_scheme = $1 AND live.org_id = s.org_id AND live.row_hash <> ${contentHash('s')}`,
    [ORG_SCHEME, runId],
  );
  const inserted = await client.query(
    `INSERT INTO company (country, org_scheme, org_id, ${CONTENT.join(', ')}, row_hash, published_run_id, updated_at)
     SELECT 'NO', $1, s.org_id, ${CONTENT.map((c) => `s.${c}`).join(', ')}, ${contentHash('s')}, $2, now()
     FROM ${rows} s
     WHERE NOT EXISTS (SELECT 1 FROM company live WHERE live.org_scheme = $1 AND live.org_id = s.org_id)`,
    [ORG_SCHEME, runId],
  );
  // Addresses follow their unit: rewritten only for units this run wrote. A unit has at most one
  // address of each kind (business or location, postal), hence ordinal 0.
  // Both join the units this run wrote: hash joins (withHashJoins).
  const removed = await withHashJoins(client, () => client.query(
    `DELETE FROM company_address a USING ${rows} s, company c
     WHERE a.org_scheme = $1 AND a.org_id = s.org_id AND c.org_scheme = $1 AND c.org_id = s.org_id AND c.published_run_id = $2`,
    [ORG_SCHEME, runId],
  ));
  const added = await withHashJoins(client, () => client.query(
    `INSERT INTO company_address (org_scheme, org_id, address_kind, ordinal, country, address_lines, postal_code, postal_place, municipality_code)
     SELECT $1, s.org_id, a.kind, 0, a.country,
            ARRAY(SELECT jsonb_array_elements_text(a.lines)), a."postalCode", a."postalPlace", a."municipalityCode"
     FROM ${rows} s
     JOIN company c ON c.org_scheme = $1 AND c.org_id = s.org_id AND c.published_run_id = $2
     CROSS JOIN LATERAL jsonb_to_recordset(s.addresses)
       AS a(kind text, lines jsonb, "postalCode" text, "postalPlace" text, "municipalityCode" text, country text)`,
    [ORG_SCHEME, runId],
  ));
  return {
    company: counts(inserted.rowCount ?? 0, updated.rowCount ?? 0),
    company_address: counts(added.rowCount ?? 0, 0, removed.rowCount ?? 0),
  };
}

/** The kinds of unit a staged snapshot holds: false = enheter, true = underenheter. */
async function stagedKinds(client: pg.PoolClient, stagingTable: string): Promise<boolean[]> {
  const result = await client.query<{ kinds: boolean[] | null }>(`SELECT array_agg(DISTINCT is_sub_unit) AS kinds FROM ${stagingTable}`);
  return result.rows[0].kinds ?? [];
}

export async function countLiveCompanies(client: pg.PoolClient, _scope: PublishScope, stagingTable: string): Promise<number> {
  const result = await client.query<{ n: string }>(
    `SELECT count(*) AS n FROM company WHERE org_scheme = $1 AND deleted_date IS NULL AND is_sub_unit = ANY($2::boolean[])`,
    [ORG_SCHEME, await stagedKinds(client, stagingTable)],
  );
  return Number(result.rows[0].n);
}

/** When the full download was taken, at the latest: its HTTP Last-Modified, else its file's time. */
async function snapshotTime(client: pg.PoolClient, runId: string): Promise<Date> {
  const download = await sourceRunDownload(client, runId, BUSINESS_SOURCE_ID);
  const modified = download?.lastModified ? new Date(download.lastModified) : null;
  if (modified && !Number.isNaN(modified.getTime())) return modified;
  const file = download?.artifactPath ? await stat(download.artifactPath).catch(() => null) : null;
  return file?.mtime ?? new Date();
}

async function setCursor(client: pg.PoolClient, feed: BusinessFeedName, runId: string, cursor: { lastUpdateId: number | null; changesSince: Date | null }): Promise<void> {
  await client.query(
    `INSERT INTO source_feed_cursor (source_id, feed, last_update_id, changes_since, published_run_id)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (source_id, feed) DO UPDATE SET last_update_id = EXCLUDED.last_update_id, changes_since = EXCLUDED.changes_since,
       published_run_id = EXCLUDED.published_run_id, updated_at = now()`,
    [BUSINESS_SOURCE_ID, feed, cursor.lastUpdateId, cursor.changesSince, runId],
  );
}

/**
 * A full download: the units of its kind(s) as the file has them; units of that kind missing
 * from the file are marked deleted today. The feed of that kind restarts from the snapshot.
 */
export async function publishBusinessSnapshot({ client, stagingTable, runId }: StagingContext): Promise<MergeResult> {
  const kinds = await stagedKinds(client, stagingTable);
  const written = await upsertCompanies(client, stagingTable, runId);
  const gone = await withHashJoins(client, () =>
    client.query(
      `UPDATE company live SET deleted_date = current_date, row_hash = ${DELETED_HASH}, published_run_id = $3, updated_at = now()
       WHERE live.org_scheme = $1 AND live.deleted_date IS NULL AND live.is_sub_unit = ANY($2::boolean[])
         AND NOT EXISTS (SELECT 1 FROM ${stagingTable} s WHERE s.org_id = live.org_id)`,
      [ORG_SCHEME, kinds, runId],
    ),
  );
  const since = new Date((await snapshotTime(client, runId)).getTime() - SNAPSHOT_MARGIN_MS);
  for (const subUnit of kinds) await setCursor(client, subUnit ? 'underenheter' : 'enheter', runId, { lastUpdateId: null, changesSince: since });
  const company = { ...written.company, deleted: gone.rowCount ?? 0 };
  return { ...company, tables: { company, company_address: written.company_address } };
}

/**
 * An increment from the feed: per unit only its latest change counts. Upserts write the unit
 * as it is now; Sletting marks it deleted (a unit the store never had stays absent); Fjernet
 * removes it with its addresses. Then each feed's cursor moves to the last id fetched.
 */
export async function publishBusinessChanges({ client, stagingTable, runId }: StagingContext, position: Record<string, unknown>): Promise<MergeResult> {
  await client.query(
    `CREATE TEMP TABLE business_latest ON COMMIT DROP AS
     SELECT DISTINCT ON (org_id) * FROM ${stagingTable} ORDER BY org_id, update_id DESC`,
  );
  const written = await upsertCompanies(client, `(SELECT * FROM business_latest WHERE change = 'upsert')`, runId);
  const marked = await client.query(
    `UPDATE company live SET deleted_date = l.deleted_date, row_hash = ${DELETED_HASH}, published_run_id = $2, updated_at = now()
     FROM business_latest l
     WHERE l.change = 'delete' AND live.org_scheme = $1 AND live.org_id = l.org_id AND live.deleted_date IS DISTINCT FROM l.deleted_date`,
    [ORG_SCHEME, runId],
  );
  const removedAddresses = await client.query(
    `DELETE FROM company_address a USING business_latest l WHERE l.change = 'remove' AND a.org_scheme = $1 AND a.org_id = l.org_id`,
    [ORG_SCHEME],
  );
  const removed = await client.query(
    `DELETE FROM company live USING business_latest l WHERE l.change = 'remove' AND live.org_scheme = $1 AND live.org_id = l.org_id`,
    [ORG_SCHEME],
  );
  const ranges = (position.ranges ?? {}) as Partial<Record<BusinessFeedName, FeedRange>>;
  for (const [feed, range] of Object.entries(ranges) as [BusinessFeedName, FeedRange][]) {
    if (range.lastUpdateId !== null) await setCursor(client, feed, runId, { lastUpdateId: range.lastUpdateId, changesSince: null });
  }
  const company = { ...written.company, deleted: (marked.rowCount ?? 0) + (removed.rowCount ?? 0) };
  const company_address = { ...written.company_address, deleted: written.company_address.deleted + (removedAddresses.rowCount ?? 0) };
  return { ...company, tables: { company, company_address } };
}
