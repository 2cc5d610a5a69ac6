/**
 * The sample writer of no-permits: The building permit exchange file.
 * The sample generator runs it (sample/register-files.ts finds this file by the source's folder).
 * A tool, like sample/: production code never imports it (.dependency-cruiser.cjs).
 */
import { PERMITS_SAMPLE_FILE } from '../../../sample/no/permits.js';
import type { SourceSample } from '../../../sample/source-sample.js';

export const sample: SourceSample = { files: [PERMITS_SAMPLE_FILE] };
