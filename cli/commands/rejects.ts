import { getPool } from '../../lib/db.js';
import { countRejects, listRejects as readRejects, runExists } from '../../lib/run-ledger.js';
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
  const filter = { runId: options.run, sourceId: options.source, reason: options.reason };
  let rows = await readRejects(pool, { ...filter, limit: options.limit });
  if (!options.run) {
    // Newest first by run, then in file order within it.
    const newest = new Map<string, number>();
    rows.forEach((row, i) => newest.has(row.runId) || newest.set(row.runId, i));
    rows = [...rows].sort((a, b) => newest.get(a.runId)! - newest.get(b.runId)! || a.sourceId.localeCompare(b.sourceId) || Number(a.position) - Number(b.position));
  }
  if (!rows.length && options.run) {
    if (!(await runExists(pool, options.run))) {
      console.error(`no run ${options.run}; list runs with: nordprop runs`);
      return 1;
    }
  }
  const total = rows.length < options.limit ? rows.length : await countRejects(pool, filter);
  const items = rows.map(({ id: _id, ...item }) => item);
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
