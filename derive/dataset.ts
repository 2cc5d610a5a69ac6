import type pg from 'pg';
import type { Country } from '../lib/domain/country.js';
import type { SharedInputs } from './cached-inputs.js';

/**
 * The contract of a derived dataset (tenants, utilization, comparables, valuations): what a
 * source adapter is to a register. A dataset only computes; the derive framework stages,
 * merges, ledgers and schedules it with the same rules as a source (docs/design.md): one
 * transaction per publish, unchanged rows never rewritten, a re-run on unchanged inputs
 * changes nothing.
 */
export type DerivedDatasetId = 'tenants' | 'utilization' | 'comparables' | 'valuations';

export interface DeriveContext {
  client: pg.PoolClient;
  country: Country;
  /** The day the dataset is computed for (YYYY-MM-DD): "the last five years", "recent sales" count back from it. */
  asOf: string;
  /**
   * Schema-qualified, quoted UNLOGGED table with the live table's columns (defaults included),
   * empty: `compute` inserts the country's complete snapshot into it.
   */
  stagingTable: string;
  /** What the run's datasets of this country share (derive/cached-inputs.ts): the property features. */
  shared: SharedInputs;
}

export interface DerivedDataset {
  id: DerivedDatasetId;
  title: string;
  /** The live table the API serves. */
  liveTable: string;
  /** Columns that identify a row within a country (`country` is implied). */
  keyColumns: string[];
  /**
   * Columns compared to decide whether a live row changed. Bookkeeping columns (updated_at,
   * computed_at) are left out so that an unchanged result writes nothing.
   */
  valueColumns: string[];
  /** Datasets whose result this one reads (valuations blend comparables): computed first. */
  dependsOn?: DerivedDatasetId[];
  /** Fills the staging table; may report what it read (the ledger's rows_read and details). */
  compute(context: DeriveContext): Promise<DeriveStats | void>;
}

/** What a computation may report beside its rows: the inputs it read and figures of its own. */
export interface DeriveStats {
  /** Input records considered (company addresses, properties, sales), for the ledger's rows_read. */
  rowsRead?: number;
  /** Dataset-specific figures kept in the ledger's details (`nordprop runs show`). */
  details?: Record<string, unknown>;
}
