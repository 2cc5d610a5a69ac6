/**
 * The sample writer of no-certification: The environmental certification exchange file.
 * The sample generator runs it (sample/register-files.ts finds this file by the source's folder).
 * A tool, like sample/: production code never imports it (.dependency-cruiser.cjs).
 */
import { CERTIFICATION_SAMPLE_FILE } from '../../../sample/no/certifications.js';
import type { SourceSample } from '../../../sample/source-sample.js';

export const sample: SourceSample = { files: [CERTIFICATION_SAMPLE_FILE] };
