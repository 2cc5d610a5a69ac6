/**
 * The sample files of registers beyond the foundation's address CSV and teig GML. Each
 * register's writer adds one entry here; `generateSample` writes them after the foundation's
 * two files, in this order, into the same directory and manifest. A writer derives everything
 * from the plan and seed (never from another file), so files stay coherent and deterministic.
 */
import type { Country } from '../lib/domain/country.js';
import type { SamplePlan } from './plan.js';
import type { SeSamplePlan } from './se/properties.js';
import { BUSINESS_SAMPLE_FILES } from './no/write-business-json.js';
import { BUILDING_SAMPLE_FILES } from './no/building-files.js';
import { ENERGY_SAMPLE_FILE } from './no/energy-certificates.js';
import { CERTIFICATION_SAMPLE_FILE } from './no/certifications.js';
import { PERMITS_SAMPLE_FILE } from './no/permits.js';
import { SE_GEODATA_SAMPLE_FILES } from './se/write-geopackages.js';
import { SE_REGISTER_SAMPLE_FILES } from './se/register-samples.js';
import { GRUNNKRETS_SAMPLE_FILE, MUNICIPALITY_SAMPLE_FILE, POSTAL_CODE_SAMPLE_FILE } from './no/areas.js';
import { LAND_ALLOCATION_SAMPLE_FILE } from './no/land-allocations.js';
import { LAND_REGISTRY_SAMPLE_FILE } from './no/land-registry.js';
import { ZONING_SAMPLE_FILE } from './no/zoning-plans.js';

export interface SampleWriteContext {
  /** Absolute path to write (the register's `inputFileName` inside the sample directory). */
  path: string;
  /** The Norwegian area plan (parcels, addresses) every Norwegian register builds on. */
  plan: SamplePlan;
  seed: string;
  parcels: number;
  /** The Swedish plan (properties, addresses, buildings); absent: `parcels` properties at the historical ratios. */
  sePlan?: SeSamplePlan;
  /** Deflate level of compressed outputs (zip, gzip); default 6. Any level gives the same content. */
  compressionLevel?: number;
}

export interface SampleRegisterFile {
  /** The source this file feeds. */
  sourceId: string;
  country: Country;
  /** File name in the sample directory; the source's `inputFileName`. */
  fileName: string;
  /** Writes the whole file (streamed, so memory stays flat); returns the records written. */
  write(context: SampleWriteContext): Promise<{ rows: number }>;
}

export const SAMPLE_REGISTER_FILES: SampleRegisterFile[] = [];
SAMPLE_REGISTER_FILES.push(...BUSINESS_SAMPLE_FILES);
SAMPLE_REGISTER_FILES.push(...BUILDING_SAMPLE_FILES);
SAMPLE_REGISTER_FILES.push(ENERGY_SAMPLE_FILE, CERTIFICATION_SAMPLE_FILE, PERMITS_SAMPLE_FILE);
SAMPLE_REGISTER_FILES.push(MUNICIPALITY_SAMPLE_FILE, GRUNNKRETS_SAMPLE_FILE, POSTAL_CODE_SAMPLE_FILE, LAND_ALLOCATION_SAMPLE_FILE, LAND_REGISTRY_SAMPLE_FILE, ZONING_SAMPLE_FILE);
SAMPLE_REGISTER_FILES.push(...SE_GEODATA_SAMPLE_FILES);
SAMPLE_REGISTER_FILES.push(...SE_REGISTER_SAMPLE_FILES);
