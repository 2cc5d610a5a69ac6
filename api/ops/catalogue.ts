import { SOURCES } from '../../sources/registry.js';
import { DATASETS, deriveLedgerId } from '../../derive/registry.js';

/** What the console has a row for: every source of the registry, then every derived dataset per country. */
export interface CatalogueEntry {
  /** The ledger's id: a source id, or a dataset's `derive-no-tenants`. */
  id: string;
  group: string;
}

export function catalogue(): CatalogueEntry[] {
  const countries = [...new Set(SOURCES.map((source) => source.country))];
  return [
    ...SOURCES.map((source) => ({ id: source.id, group: `sources ${source.country}` })),
    ...countries.flatMap((country) => DATASETS.map((dataset) => ({ id: deriveLedgerId(dataset.id, country), group: `derived ${country}` }))),
  ];
}

export const isCatalogued = (id: string) => catalogue().some((entry) => entry.id === id);
