import pg from 'pg';
import { closePools, getPool } from '../../lib/db.js';

/**
 * Plans of the statements a session runs, as PostgreSQL's auto_explain sends them to the client
 * (a NOTICE in JSON): a test can then check how the planner chose to run a statement it did not
 * write itself, e.g. a publish's.
 */

export interface PlanNode {
  'Node Type': string;
  'Parent Relationship'?: string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

export interface ExplainedStatement {
  'Query Text': string;
  Plan: PlanNode;
}

/** The settings that make a session explain every statement to its client (auto_explain must be loaded first). */
export const EXPLAIN_TO_CLIENT = ['auto_explain.log_min_duration = 0', `auto_explain.log_level = 'notice'`, `auto_explain.log_format = 'json'`];

/** Collects the plans `client` is sent into `into`. */
export function collectPlans(client: pg.ClientBase, into: ExplainedStatement[]): void {
  client.on('notice', (notice) => {
    const json = notice.message?.match(/plan:\s*(\{[\s\S]*\})\s*$/)?.[1];
    if (json) into.push(JSON.parse(json) as ExplainedStatement);
  });
}

/** Makes `client`'s session explain each statement it runs from now on, into `into`. */
export async function explainEachStatement(client: pg.ClientBase, into: ExplainedStatement[]): Promise<void> {
  await client.query(`LOAD 'auto_explain'`);
  for (const setting of EXPLAIN_TO_CLIENT) await client.query(`SET ${setting}`);
  collectPlans(client, into);
}

/**
 * Makes every new session of the database at `databaseUrl` explain each statement to its client,
 * then opens the pipeline's connections again (lib/db.ts's pool, which the in-process worker
 * uses), each collecting the plans it is sent into `into`.
 */
export async function explainPipelineStatements(databaseUrl: string, into: ExplainedStatement[]): Promise<void> {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    const database = admin.escapeIdentifier((await admin.query<{ name: string }>('SELECT current_database() AS name')).rows[0].name);
    await admin.query(`LOAD 'auto_explain'`); // its settings exist once it is loaded
    for (const setting of [`session_preload_libraries = 'auto_explain'`, ...EXPLAIN_TO_CLIENT]) {
      await admin.query(`ALTER DATABASE ${database} SET ${setting}`);
    }
  } finally {
    await admin.end();
  }
  await closePools();
  getPool().on('connect', (client) => collectPlans(client, into));
}

/** A plan node and every node below it. */
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/**
 * How a plan reads `relation` (not the table it writes): each scan's node type, index and index
 * condition, e.g. `Index Scan company_pkey ((org_scheme = '0007'::text) AND (org_id = r.org_id))`.
 */
export const readsOf = (node: PlanNode, relation: string): string[] =>
  nodesOf(node)
    .filter((n) => n['Relation Name'] === relation && n['Node Type'] !== 'ModifyTable')
    .map((n) => [n['Node Type'], n['Index Name'], n['Index Cond']].filter(Boolean).join(' '));

/**
 * The reads of `statements` that have no condition on their table's key (`keyedReads`: a table and
 * the pattern its key condition matches), each named with its statement's first line: what a
 * night's statements over a few keys must not do to a large table.
 */
export const readsWithoutKey = (statements: ExplainedStatement[], keyedReads: Record<string, RegExp>): string[] =>
  statements.flatMap((statement) =>
    Object.entries(keyedReads).flatMap(([table, key]) =>
      readsOf(statement.Plan, table)
        .filter((read) => !key.test(read))
        .map((read) => `${table} read as "${read}" by: ${statement['Query Text'].trim().split('\n')[0]}`),
    ),
  );

/** The tables a plan reads whole (sequential scans). */
export const tablesReadWhole = (node: PlanNode): string[] =>
  nodesOf(node).flatMap((n) => (n['Node Type'] === 'Seq Scan' && n['Relation Name'] ? [n['Relation Name']] : []));

/**
 * The nested loops of a plan whose inner side reads a table whole for each outer row: its inner
 * side scans a table sequentially (directly, materialized, hashed into a set) and reaches none
 * by an index. Quadratic in the rows joined. (A lateral function scan reads only its row's value.)
 */
export function scansPerRow(node: PlanNode): string[] {
  return nodesOf(node).flatMap((loop) => {
    if (loop['Node Type'] !== 'Nested Loop') return [];
    const inner = loop.Plans?.find((child) => child['Parent Relationship'] === 'Inner');
    const below = inner ? nodesOf(inner) : [];
    const scanned = below.find((n) => n['Node Type'] === 'Seq Scan');
    return scanned && !below.some((n) => /Index/.test(n['Node Type'])) ? [`nested loop reading ${scanned['Relation Name']} whole per row`] : [];
  });
}

/**
 * How the generic plan of `sql` (the plan for any values of its parameters, as a prepared
 * statement's sessions run it with plan_cache_mode = force_generic_plan) reads `relation`
 * (see readsOf). `params` only serve to run EXPLAIN EXECUTE (as literals); the statement is not run.
 */
export async function genericPlanReads(client: pg.ClientBase, sql: string, params: unknown[], relation: string): Promise<string[]> {
  await client.query(`PREPARE planned_reads AS ${sql}`);
  try {
    await client.query('SET plan_cache_mode = force_generic_plan');
    const explained = await client.query(`EXPLAIN (FORMAT JSON) EXECUTE planned_reads(${params.map((value) => client.escapeLiteral(String(value))).join(', ')})`);
    return readsOf(explained.rows[0]['QUERY PLAN'][0].Plan as PlanNode, relation);
  } finally {
    await client.query('RESET plan_cache_mode');
    await client.query('DEALLOCATE planned_reads');
  }
}
