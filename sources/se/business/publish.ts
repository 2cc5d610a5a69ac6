import type pg from 'pg';
import type { MergeResult, RepairResult, StagingContext } from '../../source-adapter.js';
import { countLiveRows, mergeTable, withHashJoins, type TableMerge } from '../../publish/merge-table.js';
import { stepTimer } from '../../publish/step-timer.js';

/**
 * The Swedish company register is national (both bulk files cover the whole country), so a
 * snapshot always replaces every Swedish company, whatever the input file is called.
 */
export const SE_COMPANY_SCOPE = { country: 'SE', municipalities: null } as const;
const SCHEME = '0007';
const SNAPSHOT = 'pg_temp.se_company_snapshot';
/** A live company's organisation number, shared by a sole trader's registrations `<number>-<löpnummer>` (its record group, record-groups.ts). */
const ORGANISATION_OF = (alias: string) => `split_part(${alias}.org_id, '-', 1)`;

export const COMPANY_MERGE: TableMerge = {
  liveTable: 'company',
  keyColumn: 'org_id',
  keyScope: `live.org_scheme = '${SCHEME}'`,
  columns: {
    org_scheme: `'${SCHEME}'`,
    name: 's.name',
    parent_org_id: 'NULL',
    is_sub_unit: 'false',
    legal_form: 's.legal_form',
    nace_code: 's.nace_code',
    nace_name: 'NULL',
    employees: 'NULL',
    founded_date: 'NULL',
    registered_date: 's.registered_date',
    website: 'NULL',
    deleted_date: 's.deleted_date',
    name_protection_no: 's.name_protection_no',
    business_description: 's.business_description',
    secondary_nace_codes: 's.secondary_nace_codes',
    register_status: 's.register_status',
    ongoing_procedure: 's.ongoing_procedure',
  },
};

/**
 * Workplaces of an organisation number that neither file knows cannot be attached to a company:
 * quarantined with the reason before validation counts, never dropped.
 */
export async function rejectOrphanWorkplaces({ client, stagingTable, runId, sourceId }: StagingContext): Promise<RepairResult> {
  const result = await client.query(
    `WITH orphan AS (
       DELETE FROM ${stagingTable} w
       WHERE w.record_kind = 'WORKPLACE'
         AND NOT EXISTS (SELECT 1 FROM ${stagingTable} c WHERE c.record_kind <> 'WORKPLACE' AND c.join_id = w.join_id)
       RETURNING w.src_pos, w.record_key, w.join_id, left(w::text, 2000) AS raw
     )
     INSERT INTO source_reject (run_id, source_id, position, reason, raw)
     SELECT $1, $2, src_pos, 'workplace ' || record_key || ' belongs to organisation ' || join_id || ', which neither Bolagsverket''s nor SCB''s file has', raw
     FROM orphan`,
    [runId, sourceId],
  );
  return { repaired: 0, rejected: result.rowCount ?? 0 };
}

/**
 * One company per organisation: Bolagsverket's entry (name, form, dates, postal address) with
 * SCB's enterprise unit (SNI codes, status, address) beside it; either alone is a company too.
 * A sole trader's several registrations share SCB's data; its workplaces go to the first.
 * The row hash covers the company, both addresses and its workplaces, so a changed workplace
 * rewrites that company's children and nothing else.
 */
async function buildSnapshot(client: pg.PoolClient, stagingTable: string): Promise<void> {
  await client.query(`DROP TABLE IF EXISTS ${SNAPSHOT}`);
  await client.query(
    `CREATE TEMP TABLE se_company_snapshot ON COMMIT DROP AS
     WITH bv AS (SELECT * FROM ${stagingTable} WHERE record_kind = 'BOLAGSVERKET'),
          scb AS (SELECT * FROM ${stagingTable} WHERE record_kind = 'SCB'),
          merged AS (
            SELECT coalesce(bv.org_id, scb.org_id) AS org_id, coalesce(bv.join_id, scb.join_id) AS join_id,
                   coalesce(bv.name, scb.name) AS name, coalesce(bv.legal_form, scb.legal_form) AS legal_form,
                   scb.nace_code, scb.secondary_nace_codes, coalesce(bv.registered_date, scb.registered_date) AS registered_date,
                   bv.deleted_date, bv.name_protection_no, bv.business_description, scb.register_status, bv.ongoing_procedure,
                   bv.address_lines AS postal_lines, bv.postal_code, bv.postal_place, bv.address_country AS postal_country,
                   scb.address_lines AS business_lines, scb.postal_code AS business_postal_code, scb.postal_place AS business_postal_place
            FROM bv FULL JOIN scb ON scb.join_id = bv.join_id
          ),
          workplace_owner AS (SELECT DISTINCT ON (join_id) join_id, org_id FROM merged ORDER BY join_id, org_id),
          workplaces AS (
            SELECT o.org_id, string_agg(concat_ws(chr(31), w.record_key, w.name, w.register_status, array_to_string(w.address_lines, chr(30)),
                                                  w.postal_code, w.postal_place, w.municipality_code, w.started_date, w.ended_date), chr(29) ORDER BY w.record_key) AS digest
            FROM ${stagingTable} w JOIN workplace_owner o USING (join_id)
            WHERE w.record_kind = 'WORKPLACE'
            GROUP BY o.org_id
          )
     SELECT m.*, (o.org_id IS NOT NULL) AS owns_workplaces, md5(row(m.*, wp.digest)::text)::uuid AS row_hash
     FROM merged m
     LEFT JOIN workplace_owner o ON o.org_id = m.org_id
     LEFT JOIN workplaces wp ON wp.org_id = m.org_id`,
  );
  await client.query(`CREATE UNIQUE INDEX ON ${SNAPSHOT} (org_id)`);
  await client.query(`ANALYZE ${SNAPSHOT}`);
}

/**
 * On a night (`removedKeys`: the organisations whose every record is gone), staging holds every
 * record of the organisations with a changed one: the companies to remove are those of these
 * organisations, and of the removed ones, that the snapshot no longer has (a sole trader's
 * registration that ended, say). Every other company stays as it is.
 */
async function collectRemovedCompanies(client: pg.PoolClient, stagingTable: string, removedKeys: string): Promise<string> {
  await client.query(`DROP TABLE IF EXISTS pg_temp.se_company_removed`);
  await client.query(
    `CREATE TEMP TABLE se_company_removed ON COMMIT DROP AS
     SELECT c.org_id FROM company c
     WHERE c.country = 'SE' AND c.org_scheme = $1
       AND ${ORGANISATION_OF('c')} IN (SELECT join_id FROM ${stagingTable} UNION SELECT join_id FROM ${removedKeys})
       AND NOT EXISTS (SELECT 1 FROM ${SNAPSHOT} s WHERE s.org_id = c.org_id)`,
    [SCHEME],
  );
  return 'pg_temp.se_company_removed';
}

export async function publishCompanies({ client, stagingTable, runId, removedKeys }: StagingContext): Promise<MergeResult> {
  const { timed, steps } = stepTimer();
  await timed('snapshot', () => buildSnapshot(client, stagingTable));
  const removedCompanies = removedKeys && (await timed('removed_companies', () => collectRemovedCompanies(client, stagingTable, removedKeys)));
  const companies = await timed('company', () => mergeTable(client, SNAPSHOT, COMPANY_MERGE, SE_COMPANY_SCOPE, runId, { timer: { timed, steps }, removedKeys: removedCompanies }));

  // Children of companies that changed or left the register are rewritten from the snapshot.
  // The companies this run wrote, materialized and analyzed: joined to staging by their
  // published_run_id, which the planner's statistics do not know yet, the planner expected none
  // and scanned staging once per company (14 s of a 0.25 x national night's 19 s publish).
  await timed('changed_companies', async () => {
    await client.query(`DROP TABLE IF EXISTS pg_temp.se_company_changed`);
    await client.query(
      `CREATE TEMP TABLE se_company_changed ON COMMIT DROP AS
       SELECT s.* FROM ${SNAPSHOT} s JOIN company c ON c.org_scheme = $1 AND c.org_id = s.org_id AND c.published_run_id = $2`,
      [SCHEME, runId],
    );
    await client.query(`ANALYZE pg_temp.se_company_changed`);
  });
  // A snapshot of the country: every child whose company did not stay as it was. A night: the
  // children of the companies it changed or removed, no others (the rest stay as they are).
  const stale = (table: string) =>
    removedCompanies
      ? client.query(
        `DELETE FROM ${table} child
         WHERE child.org_scheme = $1
           AND child.org_id IN (SELECT org_id FROM pg_temp.se_company_changed UNION ALL SELECT org_id FROM ${removedCompanies})`,
        [SCHEME],
      )
      // an anti-join of the companies this run wrote: hash joins (withHashJoins)
      : withHashJoins(client, () => client.query(
        `DELETE FROM ${table} child
         WHERE child.org_scheme = $1
           AND NOT EXISTS (SELECT 1 FROM company c WHERE c.org_scheme = $1 AND c.org_id = child.org_id AND c.published_run_id <> $2)`,
        [SCHEME, runId],
      ));
  const addressesRemoved = await timed('company_address.delete', () => stale('company_address'));
  const addressesAdded = await timed('company_address.insert', () => client.query(
    `INSERT INTO company_address (org_scheme, org_id, address_kind, ordinal, country, address_lines, postal_code, postal_place, municipality_code)
     SELECT '${SCHEME}', s.org_id, 'POSTAL', 0, coalesce(s.postal_country, 'SE'), s.postal_lines, s.postal_code, s.postal_place, NULL
     FROM pg_temp.se_company_changed s
     WHERE cardinality(s.postal_lines) > 0 OR s.postal_code IS NOT NULL
     UNION ALL
     SELECT '${SCHEME}', s.org_id, 'BUSINESS', 0, 'SE', s.business_lines, s.business_postal_code, s.business_postal_place, NULL
     FROM pg_temp.se_company_changed s
     WHERE cardinality(s.business_lines) > 0 OR s.business_postal_code IS NOT NULL
     UNION ALL
     SELECT '${SCHEME}', s.org_id, 'VISITING', (row_number() OVER (PARTITION BY s.org_id ORDER BY w.record_key) - 1)::int, 'SE',
            w.address_lines, w.postal_code, w.postal_place, w.municipality_code
     FROM pg_temp.se_company_changed s
     JOIN ${stagingTable} w ON w.record_kind = 'WORKPLACE' AND w.join_id = s.join_id
     WHERE s.owns_workplaces AND (cardinality(w.address_lines) > 0 OR w.postal_code IS NOT NULL)`,
  ));
  const workplacesRemoved = await timed('company_workplace.delete', () => stale('company_workplace'));
  const workplacesAdded = await timed('company_workplace.insert', () => client.query(
    `INSERT INTO company_workplace (org_scheme, org_id, workplace_id, country, name, status, municipality_code, started_date, ended_date)
     SELECT '${SCHEME}', s.org_id, w.record_key, 'SE', w.name, w.register_status, w.municipality_code, w.started_date, w.ended_date
     FROM pg_temp.se_company_changed s
     JOIN ${stagingTable} w ON w.record_kind = 'WORKPLACE' AND w.join_id = s.join_id
     WHERE s.owns_workplaces`,
  ));
  return {
    ...companies,
    tables: {
      company: companies,
      company_address: { inserted: addressesAdded.rowCount ?? 0, updated: 0, deleted: addressesRemoved.rowCount ?? 0 },
      company_workplace: { inserted: workplacesAdded.rowCount ?? 0, updated: 0, deleted: workplacesRemoved.rowCount ?? 0 },
    },
    stepsMs: steps,
  };
}

/** Live companies and workplaces: what a snapshot's staged records are compared with. */
export async function countLiveCompanies(client: pg.PoolClient): Promise<number> {
  const workplaces = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM company_workplace WHERE org_scheme = $1`, [SCHEME]);
  return (await countLiveRows(client, 'company', SE_COMPANY_SCOPE)) + workplaces.rows[0].n;
}

/** Organisations live holds, counted as `source_record` counts groups. */
export async function countLiveCompanyGroups(client: pg.PoolClient): Promise<number> {
  const result = await client.query<{ n: number }>(
    `SELECT count(*)::bigint AS n FROM (SELECT DISTINCT ${ORGANISATION_OF('c')} FROM company c WHERE c.country = 'SE' AND c.org_scheme = $1) organisation`,
    [SCHEME],
  );
  return Number(result.rows[0].n);
}
