/**
 * The sample writer of no-land-allocation: The land allocation exchange file.
 * The sample generator runs it (sample/register-files.ts finds this file by the source's folder).
 * A tool, like sample/: production code never imports it (.dependency-cruiser.cjs).
 */
import { LAND_ALLOCATION_SAMPLE_FILE } from '../../../sample/no/land-allocations.js';
import type { SourceSample } from '../../../sample/source-sample.js';

export const sample: SourceSample = { files: [LAND_ALLOCATION_SAMPLE_FILE] };
