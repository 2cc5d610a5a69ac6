import type { DerivedDataset } from '../dataset.js';
import { computeUtilization } from './compute.js';
import { computeSwedishUtilization } from './compute-sweden.js';

/**
 * Utilization: what the zoning plan covering a property allows against what its buildings
 * already use (issue 6; spec "Utilization"). Norway measures floor area (the matrikkel's BRA),
 * Sweden built-over area (the footprints in Lantmäteriet's byggnad). See docs/derived/utilization.md.
 */
export const utilization: DerivedDataset = {
  id: 'utilization',
  title: 'Utilization under the zoning plan',
  liveTable: 'utilization',
  keyColumns: ['cadastre_id'],
  valueColumns: ['allowed_bya', 'allowed_bra_m2', 'built_bra_m2', 'remaining_bra_m2', 'basis', 'plan_municipality_code', 'plan_id', 'plot_area_m2', 'built_over_m2'],
  compute: (context) => (context.country === 'SE' ? computeSwedishUtilization(context) : computeUtilization(context)),
};
