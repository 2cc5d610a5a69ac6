/**
 * The sample writer of no-grunnkrets: Geonorge's grunnkrets GeoJSON.
 * The sample generator runs it (sample/register-files.ts finds this file by the source's folder).
 * A tool, like sample/: production code never imports it (.dependency-cruiser.cjs).
 */
import { GRUNNKRETS_SAMPLE_FILE } from '../../../sample/no/areas.js';
import type { SourceSample } from '../../../sample/source-sample.js';

export const sample: SourceSample = { files: [GRUNNKRETS_SAMPLE_FILE] };
