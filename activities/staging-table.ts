import { quoteIdent } from '../lib/db.js';
import type { SourceAdapter } from '../sources/source-adapter.js';

/** Each source run stages into its own table: `staging."<source>_<run>"`. */
export function stagingTableName(sourceId: string, runId: string): string {
  const name = `${sourceId}_${runId}`.toLowerCase().replace(/[^a-z0-9_]/g, '_').slice(0, 63);
  return `staging.${quoteIdent(name)}`;
}

export function createStagingSql(source: SourceAdapter, table: string): string {
  const columns = source.stagingColumns.map((column) => `${quoteIdent(column.name)} ${column.type}`);
  // UNLOGGED: a crash loses only a staging table, which a retry rebuilds anyway.
  return `CREATE UNLOGGED TABLE IF NOT EXISTS ${table} (src_pos bigint NOT NULL, ${columns.join(', ')}, row_hash uuid NOT NULL)`;
}

export const stagingColumnList = (source: SourceAdapter) => ['src_pos', ...source.stagingColumns.map((c) => quoteIdent(c.name)), 'row_hash'].join(', ');
