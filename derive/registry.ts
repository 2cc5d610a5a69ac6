import type { Country } from '../lib/domain/country.js';
import type { DerivedDataset, DerivedDatasetId } from './dataset.js';
import { tenants } from './tenants/dataset.js';
import { utilization } from './utilization/dataset.js';
import { comparables } from './comparables/dataset.js';
import { valuations } from './valuations/dataset.js';

/** Every derived dataset the derive workflow computes; add a dataset's module here. */
export const DATASETS: DerivedDataset[] = [tenants, utilization, comparables, valuations];

export const DATASET_IDS = DATASETS.map((dataset) => dataset.id);

export function getDataset(id: string): DerivedDataset {
  const dataset = DATASETS.find((d) => d.id === id);
  if (!dataset) throw new Error(`unknown dataset "${id}" (known: ${DATASET_IDS.join(', ')})`);
  return dataset;
}

/**
 * The datasets asked for (all when none are named), each after the datasets it reads. A
 * dependency that was not asked for is not added: its previous live result is read instead.
 */
export function selectDatasets(ids?: readonly string[]): DerivedDataset[] {
  const wanted = new Set((ids?.length ? ids : DATASET_IDS).map((id) => getDataset(id).id));
  const ordered: DerivedDataset[] = [];
  const visit = (dataset: DerivedDataset, path: string[]) => {
    if (ordered.includes(dataset)) return;
    if (path.includes(dataset.id)) throw new Error(`datasets depend on each other in a cycle: ${[...path, dataset.id].join(' → ')}`);
    for (const dependency of dataset.dependsOn ?? []) if (wanted.has(dependency)) visit(getDataset(dependency), [...path, dataset.id]);
    ordered.push(dataset);
  };
  for (const dataset of DATASETS) if (wanted.has(dataset.id)) visit(dataset, []);
  return ordered;
}

/** The ledger's name for a dataset computed for one country: `derive-no-tenants`. */
export const deriveLedgerId = (datasetId: DerivedDatasetId, country: Country) => `derive-${country.toLowerCase()}-${datasetId}`;
