/**
 * The sample writer of no-postal-code: Geonorge's postal code area GeoJSON.
 * The sample generator runs it (sample/register-files.ts finds this file by the source's folder).
 * A tool, like sample/: production code never imports it (.dependency-cruiser.cjs).
 */
import { POSTAL_CODE_SAMPLE_FILE } from '../../../sample/no/areas.js';
import type { SourceSample } from '../../../sample/source-sample.js';

export const sample: SourceSample = { files: [POSTAL_CODE_SAMPLE_FILE] };
