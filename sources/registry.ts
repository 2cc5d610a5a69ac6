import type { Country, SourceAdapter } from './source-adapter.js';
import { noAddress } from './no/address.js';
import { noCadastre } from './no/cadastre.js';
import { noBuilding } from './no/building.js';
import { noMatrikkelDetail } from './no/matrikkel-detail.js';
import { noEnergy } from './no/energy.js';
import { noCertification } from './no/certification.js';
import { noPermits } from './no/permits.js';
import { seEnergy } from './se/energy.js';
import { seArea } from './se/area.js';
import { seTransactions } from './se/transactions.js';
import { seBusiness } from './se/business.js';
import { seCadastre } from './se/cadastre.js';
import { seAddress } from './se/address.js';
import { seBuilding } from './se/building.js';
import { seZoning } from './se/zoning.js';
import { noArea } from './no/area.js';
import { noGrunnkrets } from './no/grunnkrets.js';
import { noPostalCode } from './no/postal-code.js';
import { noLandAllocation } from './no/land-allocation.js';
import { noLandRegistry } from './no/land-registry.js';
import { noZoning } from './no/zoning.js';
import { noBusiness } from './no/business.js';

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

export function getSource(id: string): SourceAdapter {
  const source = SOURCES.find((candidate) => candidate.id === id);
  if (!source) throw new Error(`unknown source "${id}"; known sources: ${SOURCES.map((s) => s.id).join(', ')}`);
  return source;
}

export function selectSources(filter: { country?: Country; sources?: string[] } = {}): SourceAdapter[] {
  const chosen = filter.sources?.length ? filter.sources.map(getSource) : [...SOURCES];
  return chosen.filter((source) => !filter.country || source.country === filter.country);
}
