import { describe, expect, it } from 'vitest';
import { DATASETS, deriveLedgerId, selectDatasets } from '../../derive/registry.js';

describe('the dataset registry', () => {
  it('lists each dataset once, and every dependency is a listed dataset', () => {
    const ids = DATASETS.map((d) => d.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(['tenants', 'utilization']));
    for (const dataset of DATASETS) for (const dependency of dataset.dependsOn ?? []) expect(ids).toContain(dependency);
  });

  it('orders a selection so that each dataset comes after the ones it reads', () => {
    const ordered = selectDatasets().map((d) => d.id);
    expect(ordered.sort()).toEqual(DATASETS.map((d) => d.id).sort());
    const position = new Map(selectDatasets().map((d, i) => [d.id, i]));
    for (const dataset of DATASETS) for (const dependency of dataset.dependsOn ?? []) expect(position.get(dependency)!).toBeLessThan(position.get(dataset.id)!);
    expect(selectDatasets(['utilization']).map((d) => d.id)).toEqual(['utilization']);
  });

  it('names an unknown dataset, and gives each dataset and country its ledger id', () => {
    expect(() => selectDatasets(['rents'])).toThrow(/unknown dataset "rents" \(known: .*tenants/);
    expect(deriveLedgerId('tenants', 'NO')).toBe('derive-no-tenants');
    expect(deriveLedgerId('utilization', 'SE')).toBe('derive-se-utilization');
  });
});
