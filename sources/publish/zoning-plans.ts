import type pg from 'pg';
import type { ChangeCounts, MergeResult, PublishScope, StagingContext } from '../source-adapter.js';
import { mergeKeyed, type KeyedMerge } from './merge-keyed.js';
import { rewriteChildren } from './child-rows.js';

/**
 * The documents of the zoning plans a run published (Norwegian reguleringsplaner, Swedish
 * detaljplaner): staged as a `documents` jsonb array per plan. Documents of plans this run
 * inserted or changed are rewritten; those of plans that left go with them.
 */
function publishZoningPlanDocuments(client: pg.PoolClient, stagingTable: string, country: string, runId: string): Promise<ChangeCounts> {
  return rewriteChildren(
    client,
    { table: 'zoning_plan_document', parent: 'zoning_plan', key: ['municipality_code', 'plan_id'] },
    { country, runId },
    `INSERT INTO zoning_plan_document (country, municipality_code, plan_id, document_id, kind, title, published_date, source_url, media_type)
     SELECT $1, s.municipality_code, s.plan_id, d.document_id, d.kind, d.title, d.published_date, d.source_url, d.media_type
     FROM ${stagingTable} s
     JOIN zoning_plan p ON p.country = $1 AND p.municipality_code = s.municipality_code AND p.plan_id = s.plan_id AND p.published_run_id = $2
     CROSS JOIN LATERAL jsonb_to_recordset(s.documents) AS d(document_id text, kind text, title text, published_date date, source_url text, media_type text)`,
  );
}

/**
 * A zoning source's publish, the same for both countries: the plans merged by key under the
 * source's column mapping, then their documents.
 */
export async function publishZoningPlans({ client, stagingTable, runId }: StagingContext, scope: PublishScope, plansMerge: KeyedMerge): Promise<MergeResult> {
  const plans = await mergeKeyed(client, stagingTable, plansMerge, scope, runId);
  const documents = await publishZoningPlanDocuments(client, stagingTable, scope.country, runId);
  return {
    inserted: plans.inserted + documents.inserted,
    updated: plans.updated,
    deleted: plans.deleted + documents.deleted,
    tables: { zoning_plan: plans, zoning_plan_document: documents },
  };
}
