import type { Country, SourceAdapter } from './source-adapter.js';
import { noAddress } from './no/address/adapter.js';
import { noCadastre } from './no/cadastre/adapter.js';
import { noBuilding } from './no/building/adapter.js';
import { noMatrikkelDetail } from './no/matrikkel-detail/adapter.js';
import { noEnergy } from './no/energy/adapter.js';
import { noCertification } from './no/certification/adapter.js';
import { noPermits } from './no/permits/adapter.js';
import { seEnergy } from './se/energy/adapter.js';
import { seArea } from './se/area/adapter.js';
import { seTransactions } from './se/transactions/adapter.js';
import { seBusiness } from './se/business/adapter.js';
import { seCadastre } from './se/cadastre/adapter.js';
import { seAddress } from './se/address/adapter.js';
import { seBuilding } from './se/building/adapter.js';
import { seZoning } from './se/zoning/adapter.js';
import { noArea } from './no/area/adapter.js';
import { noGrunnkrets } from './no/grunnkrets/adapter.js';
import { noPostalCode } from './no/postal-code/adapter.js';
import { noLandAllocation } from './no/land-allocation/adapter.js';
import { noLandRegistry } from './no/land-registry/adapter.js';
import { noZoning } from './no/zoning/adapter.js';
import { noBusiness } from './no/business/adapter.js';

/** Every register the pipeline ingests. Adding a source means adding its adapter here. */
export const SOURCES: readonly SourceAdapter[] = [
  // Norway
  noAddress,
  noCadastre,
  noBuilding,
  noMatrikkelDetail,
  noEnergy,
  noCertification,
  noPermits,
  noLandRegistry,
  noZoning,
  noArea,
  noGrunnkrets,
  noPostalCode,
  noLandAllocation,
  noBusiness,
  // Sweden
  seCadastre,
  seAddress,
  seBuilding,
  seEnergy,
  seBusiness,
  seTransactions,
  seArea,
  seZoning,
];

/**
 * The folder of a source's files, `sources/<country>/<id without the country>` (no-energy:
 * sources/no/energy): its adapter.ts, sample.ts and helpers of its own. Paths from the repository root.
 */
export function sourceFolder(source: Pick<SourceAdapter, 'id' | 'country'>): string {
  return `sources/${source.country.toLowerCase()}/${source.id.slice(source.country.length + 1)}`;
}

export function getSource(id: string): SourceAdapter {
  const source = SOURCES.find((candidate) => candidate.id === id);
  if (!source) throw new Error(`unknown source "${id}"; known sources: ${SOURCES.map((s) => s.id).join(', ')}`);
  return source;
}

export function selectSources(filter: { country?: Country; sources?: string[] } = {}): SourceAdapter[] {
  const chosen = filter.sources?.length ? filter.sources.map(getSource) : [...SOURCES];
  return chosen.filter((source) => !filter.country || source.country === filter.country);
}
