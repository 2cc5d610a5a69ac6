import type { DerivedDataset } from '../dataset.js';
import { computeTenants } from './compute.js';

/**
 * Tenants: companies whose business, location or visiting address in the business register is
 * an address on the property (issue 6; spec "Tenant"). See docs/derived/tenants.md.
 */
export const tenants: DerivedDataset = {
  id: 'tenants',
  title: 'Tenants from the business registers',
  liveTable: 'tenant',
  keyColumns: ['cadastre_id', 'org_scheme', 'org_id'],
  valueColumns: [
    'name', 'org_country', 'verification_source', 'confidence', 'last_seen_at', 'employees', 'nace_code', 'nace_name', 'unit_number',
    'legal_form', 'founded_date', 'moved_in_date', 'website', 'is_owner', 'address_id', 'address_kind', 'match_rule',
  ],
  compute: computeTenants,
};
