/**
 * The sample writer of se-zoning: The detaljplan exchange file.
 * The sample generator runs it (sample/register-files.ts finds this file by the source's folder).
 * A tool, like sample/: production code never imports it (.dependency-cruiser.cjs).
 */
import { SE_ZONING_SAMPLE_FILE } from '../../../sample/se/zoning-plans.js';
import type { SourceSample } from '../../../sample/source-sample.js';

export const sample: SourceSample = { files: [SE_ZONING_SAMPLE_FILE] };
