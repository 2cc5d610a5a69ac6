/**
 * The sample writer of no-zoning: The zoning plan exchange file.
 * The sample generator runs it (sample/register-files.ts finds this file by the source's folder).
 * A tool, like sample/: production code never imports it (.dependency-cruiser.cjs).
 */
import { ZONING_SAMPLE_FILE } from '../../../sample/no/zoning-plans.js';
import type { SourceSample } from '../../../sample/source-sample.js';

export const sample: SourceSample = { files: [ZONING_SAMPLE_FILE] };
