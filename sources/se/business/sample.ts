/**
 * The sample writer of se-business: Bolagsverket's and SCB's company files, bundled in one tar.
 * The sample generator runs it (sample/register-files.ts finds this file by the source's folder).
 * A tool, like sample/: production code never imports it (.dependency-cruiser.cjs).
 */
import { SE_BUSINESS_SAMPLE_FILE } from '../../../sample/se/companies.js';
import type { SourceSample } from '../../../sample/source-sample.js';

export const sample: SourceSample = { files: [SE_BUSINESS_SAMPLE_FILE] };
