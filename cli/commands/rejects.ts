import { getPool } from '../../lib/db.js';
import { printJson, printTable } from '../output.js';

export interface RejectsOptions {
  run?: string;
  source?: string;
  /** Part of the reason, any case. */
  reason?: string;
  limit: number;
  json: boolean;
}

const flat = (text: string | null, max: number) => {
  if (text === null) return '';
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/**
 * `nordprop rejects`: rows of source_reject, rejected or repaired, with their position in the
 * file (CSV line, feature index), the reason and the raw text. One run: in file order per
 * source; otherwise the newest first, grouped by run.
 */
export async function listRejects(options: RejectsOptions): Promise<number> {
  const pool = getPool();
  const where = `($1::text IS NULL OR run_id = $1) AND ($2::text IS NULL OR source_id = $2)
                 AND ($3::text IS NULL OR reason ILIKE '%' || $3 || '%' ESCAPE '\\')`;
  const parameters = [options.run ?? null, options.source ?? null, options.reason?.replace(/[\\%_]/g, '\\$&') ?? null];
  const result = await pool.query(
    `SELECT id, run_id, source_id, position, disposition, reason, raw, created_at FROM source_reject WHERE ${where}
     ORDER BY ${options.run ? 'source_id, position, id' : 'id DESC'} LIMIT $4`,
    [...parameters, options.limit],
  );
  let rows = result.rows;
  if (!options.run) {
    // Newest first by run, then in file order within it.
    const newest = new Map<string, number>();
    rows.forEach((row, i) => newest.has(row.run_id) || newest.set(row.run_id, i));
    rows = [...rows].sort((a, b) => newest.get(a.run_id)! - newest.get(b.run_id)! || a.source_id.localeCompare(b.source_id) || Number(a.position) - Number(b.position));
  }
  if (!rows.length && options.run) {
    const known = await pool.query(`SELECT 1 FROM run WHERE run_id = $1`, [options.run]);
    if (!known.rowCount) {
      console.error(`no run ${options.run}; list runs with: nordprop runs`);
      return 1;
    }
  }
  const total = rows.length < options.limit ? rows.length : Number((await pool.query(`SELECT count(*) AS n FROM source_reject WHERE ${where}`, parameters)).rows[0].n);
  const items = rows.map((row) => ({
    runId: row.run_id, sourceId: row.source_id, position: row.position === null ? null : Number(row.position), disposition: row.disposition,
    reason: row.reason, raw: row.raw, createdAt: row.created_at,
  }));
  if (options.json) {
    printJson({ items, total });
    return 0;
  }
  printTable(
    items.map((item) => ({
      ...(options.run ? {} : { run: item.runId }),
      source: item.sourceId,
      position: item.position,
      disposition: item.disposition,
      reason: flat(item.reason, 100),
      raw: flat(item.raw, 100),
    })),
  );
  if (total > items.length) console.log(`(${items.length} of ${total}; more with --limit, fewer with --run, --source or --reason; whole raw text with --json)`);
  return 0;
}
