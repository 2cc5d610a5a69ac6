import type { CeilingMeasurement, CeilingShape } from './copy-ceiling.js';
import type { MachineInfo } from './machine.js';
import type { OgrMeasurement } from './ogr2ogr.js';
import type { BenchSample } from './sample-data.js';
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
}

export interface OgrResult {
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
  input: BenchSample['address'];
  loads: LoadRun[];
  ceiling: Record<CeilingShape, CeilingMeasurement[]>;
  /** Size of the COPY text dump of the published table. */
  dumpBytes: number;
  /** Live rows after the last load (in the ceiling's table). */
  publishedRows: number;
  ogr: OgrResult | { skipped: string };
}

export interface NightlyRun {
  runId: string;
  seconds: number;
  outcomes: Record<string, string>;
  phasesMs: Record<string, Record<string, number>>;
  memory: MemoryPeak;
}

export interface BenchResults {
  startedAt: string;
  finishedAt: string;
  runs: number;
  machine: MachineInfo;
  loadAverageBefore: string;
  loadAverageAfter: string;
  sample: BenchSample;
  address: SourceResult;
  cadastre: SourceResult;
  nightly: NightlyRun[];
}
