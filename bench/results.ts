import type { SourceState } from './build-stamp.js';
import type { CeilingMeasurement, CeilingShape } from './copy-ceiling.js';
import type { MachineInfo } from './machine.js';
import type { OgrMeasurement } from './ogr2ogr.js';
import type { PublishBreakdown } from './publish-breakdown.js';
import type { RegisterLoads } from './register-loads.js';
import type { BenchSample, InputFile } from './sample-data.js';
import type { Country } from '../lib/domain/country.js';
import type { StageLevel } from './stage-breakdown.js';
import type { MemoryPeak } from './worker-process.js';

/** Everything one benchmark run measured: the report is rendered from this alone. */

export interface LoadRun {
  runId: string;
  /** Workflow start request → result received. */
  seconds: number;
  rowsRead: number;
  rowsStaged: number;
  rowsRejected: number;
  rowsRepaired: number;
  inserted: number;
  /** download / stage / validate / publish, as recorded in source_run.durations_ms. */
  phasesMs: Record<string, number>;
  memory: MemoryPeak;
  /** Fingerprint of the compiled pipeline the worker ran. */
  build: string;
}

export interface OgrResult {
  /** What ogr2ogr read: "Teig GML", "address CSV", … */
  label: string;
  command: string[];
  runs: OgrMeasurement[];
  expectedRows: number;
}

export interface SourceResult {
  sourceId: string;
  title: string;
  /** What one row is: "address", "parcel". */
  unit: string;
  /** The published table the ceiling is measured on. */
  table: string;
  input: InputFile;
  loads: LoadRun[];
  ceiling: Record<CeilingShape, CeilingMeasurement[]>;
  /** Size of the COPY text dump of the published table. */
  dumpBytes: number;
  /** Live rows after the last load (in the ceiling's table). */
  publishedRows: number;
  ogr: OgrResult | { skipped: string };
  /** The adapter's publish() replayed on the published rows, statement by statement (one pass); null where the benchmark has no replay plan for the source. */
  publish: PublishBreakdown | null;
  /** The stage pipeline's steps run on their own in the benchmark process (one pass). */
  stage: StageLevel[];
}

export interface NightlyRun {
  runId: string;
  seconds: number;
  outcomes: Record<string, string>;
  phasesMs: Record<string, Record<string, number>>;
  memory: MemoryPeak;
  build: string;
}

export interface BenchResults {
  startedAt: string;
  finishedAt: string;
  runs: number;
  machine: MachineInfo;
  /** The commit and the uncommitted pipeline files at the start. */
  source: SourceState;
  loadAverageBefore: string;
  loadAverageAfter: string;
  /** 1-minute load average sampled every 5 s through the run. */
  loadSamples: number[];
  sample: BenchSample;
  /** The country measured, or undefined for both. */
  country: Country | undefined;
  /** The loads compared against the raw-COPY ceiling and ogr2ogr: no-address and no-cadastre, or se-cadastre for Sweden alone. */
  compared: SourceResult[];
  /** Every other register, end to end. */
  registers: RegisterLoads[];
  nightly: NightlyRun[];
}
