/**
 * The sample writer of se-area: The Swedish area tar (municipalities, postal code areas, land allocations).
 * The sample generator runs it (sample/register-files.ts finds this file by the source's folder).
 * A tool, like sample/: production code never imports it (.dependency-cruiser.cjs).
 */
import { SE_AREA_SAMPLE_FILE } from '../../../sample/se/areas.js';
import type { SourceSample } from '../../../sample/source-sample.js';

export const sample: SourceSample = { files: [SE_AREA_SAMPLE_FILE] };
