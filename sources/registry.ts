import type { Country, SourceAdapter } from './source-adapter.js';
import { noAddress } from './no/address.js';
import { noCadastre } from './no/cadastre.js';
import { noEnergy } from './no/energy.js';
import { noCertification } from './no/certification.js';
import { noPermits } from './no/permits.js';

/** Every register the pipeline ingests. Adding a source means adding its adapter here. */
export const SOURCES: readonly SourceAdapter[] = [noAddress, noCadastre, noEnergy, noCertification, noPermits];

export function getSource(id: string): SourceAdapter {
  const source = SOURCES.find((candidate) => candidate.id === id);
  if (!source) throw new Error(`unknown source "${id}"; known sources: ${SOURCES.map((s) => s.id).join(', ')}`);
  return source;
}

export function selectSources(filter: { country?: Country; sources?: string[] } = {}): SourceAdapter[] {
  const chosen = filter.sources?.length ? filter.sources.map(getSource) : [...SOURCES];
  return chosen.filter((source) => !filter.country || source.country === filter.country);
}
