import type { BenchResults, SourceResult } from './results.js';
import { rate, spread } from './stats.js';
import { ADDRESS_TARGET_ROWS_PER_SECOND, addressLoad, parcelLoad } from './targets.js';

/** Plain statements derived from the figures (no judgement beyond arithmetic), for the report's summary. */

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const s1 = (n: number) => (Math.abs(n) < 0.05 ? 0 : n).toFixed(1);
const pct = (x: number) => `${Math.round(100 * x)} %`;

const PHASES = ['download', 'stage', 'validate', 'publish'] as const;

function medians(source: SourceResult) {
  const total = spread(source.loads.map((l) => l.seconds)).median;
  const phase = Object.fromEntries(PHASES.map((p) => [p, spread(source.loads.map((l) => (l.phasesMs[p] ?? 0) / 1000)).median])) as Record<(typeof PHASES)[number], number>;
  const ceiling = (shape: keyof SourceResult['ceiling']) => spread(source.ceiling[shape].map((m) => m.seconds)).median;
  return { total, phase, indexed: ceiling('indexed'), bare: ceiling('bare'), bareThenIndex: ceiling('bare-then-index') };
}

function sourceFindings(source: SourceResult): string[] {
  const m = medians(source);
  const [topPhase, topSeconds] = Object.entries(m.phase).sort((a, b) => b[1] - a[1])[0];
  const other = m.total - PHASES.reduce((sum, p) => sum + m.phase[p], 0);
  const parse = source.stage.at(-2);
  const encoded = source.stage.at(-1);
  const lines = [
    `**${source.title}**: ${s1(m.total)} s end to end; ${topPhase} is the largest phase (${s1(topSeconds)} s, ${pct(topSeconds / m.total)}), then ` +
      PHASES.filter((p) => p !== topPhase)
        .sort((a, b) => m.phase[b] - m.phase[a])
        .map((p) => `${p} ${s1(m.phase[p])} s`)
        .join(', ') +
      `, and ${s1(other)} s outside the recorded phases.`,
  ];
  if (parse && encoded) {
    lines.push(
      `Stage: reading and normalizing the file on its own takes ${s1(parse.seconds)} s and building the COPY lines with their hashes ` +
        (encoded.seconds > parse.seconds ? `${s1(encoded.seconds - parse.seconds)} s more` : 'no measurable time more (within the noise of one pass)') +
        (encoded.seconds >= m.phase.stage
          ? `; that standalone pass (${s1(encoded.seconds)} s) takes as long as the pipeline's whole stage phase (${s1(m.phase.stage)} s), so the phase is bound by the worker's single-threaded JavaScript, with the COPY into staging running alongside it.`
          : `, so ${s1(m.phase.stage - encoded.seconds)} s of the ${s1(m.phase.stage)} s stage phase is COPY into staging and the activity's own work: `) +
        (encoded.seconds >= m.phase.stage
          ? ''
          : encoded.seconds / m.phase.stage >= 0.6
          ? `the worker's single-threaded JavaScript accounts for ${pct(encoded.seconds / m.phase.stage)} of the phase.`
          : `the JavaScript side is only ${pct(encoded.seconds / m.phase.stage)} of the phase; the rest is spent around COPY.`),
    );
  }
  const p = source.publish;
  if (!p) {
    lines.push(`Load: a raw COPY of the published rows into the indexed table takes ${s1(m.indexed)} s, into an unindexed one ${s1(m.bare)} s (${s1(m.bareThenIndex)} s with the indexes built afterwards); the pipeline's publish phase took ${s1(m.phase.publish)} s.`);
    return lines;
  }
  lines.push(
    `Publish: the replayed first-load publish took ${s1(p.firstLoadSeconds)} s, a plain INSERT … SELECT of the same rows into the same indexed table ${s1(p.plainInsertSeconds)} s, ` +
      `a raw COPY into the indexed table ${s1(m.indexed)} s, into an unindexed one ${s1(m.bare)} s (${s1(m.bareThenIndex)} s with the indexes built afterwards). ` +
      `Index maintenance on an indexed table costs ${s1(m.indexed - m.bare)} s of the COPY; republishing an unchanged snapshot takes ${s1(p.unchangedSeconds)} s.`,
  );
  return lines;
}

export function findings(results: BenchResults): string[] {
  const out = results.compared.flatMap(sourceFindings);
  const parcels = parcelLoad(results);
  const ogr = parcels?.ogr;
  if (parcels && ogr && 'runs' in ogr) {
    const m = medians(parcels);
    const xml = parcels.stage.find((level) => /XML/.test(level.label));
    const ogrSeconds = spread(ogr.runs.map((r) => r.seconds)).median;
    out.push(
      `Parcels against ogr2ogr: ogr2ogr loads the ${ogr.label} in ${s1(ogrSeconds)} s (reading, reprojecting, COPY and the GiST index); nordprop's stage phase alone takes ${s1(m.phase.stage)} s` +
        (xml ? `; run on its own, unzipping and parsing the XML into features takes ${s1(xml.seconds)} s (${s1(xml.seconds - (parcels.stage[0]?.seconds ?? 0))} s without the unzip)` : '') +
        `; validate (${s1(m.phase.validate)} s), publish (${s1(m.phase.publish)} s) and the rest (${s1(m.total - PHASES.reduce((sum, p) => sum + m.phase[p], 0))} s) come on top.`,
    );
  }
  const address = addressLoad(results);
  if (!address) return out;
  const ceiling = spread(address.ceiling.indexed.map((m) => rate(m.rows, m.seconds))).median;
  const bareThenIndex = spread(address.ceiling['bare-then-index'].map((m) => rate(m.rows, m.seconds))).median;
  const bare = spread(address.ceiling.bare.map((m) => rate(m.rows, m.seconds))).median;
  if (ceiling < ADDRESS_TARGET_ROWS_PER_SECOND) {
    out.push(
      `The address target (${int(ADDRESS_TARGET_ROWS_PER_SECOND)} rows/s) is above what PostgreSQL, as configured on this machine, takes even for already-normalized rows: ` +
        `${int(ceiling)} rows/s by COPY into a table with the live indexes, ${int(bareThenIndex)} rows/s when the indexes are built after the COPY, ${int(bare)} rows/s into a table with no index at all. ` +
        'The pipeline writes every row twice (the staging COPY, then the publish into the live table), so no change in the worker\'s code alone can reach the target on this machine.',
    );
  }
  return out;
}
