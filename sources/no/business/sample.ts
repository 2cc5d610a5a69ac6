/**
 * The sample writer of no-business: Brønnøysund's enheter and underenheter downloads, bundled in one tar.
 * The sample generator runs it (sample/register-files.ts finds this file by the source's folder).
 * A tool, like sample/: production code never imports it (.dependency-cruiser.cjs).
 */
import { BUSINESS_SAMPLE_FILES } from '../../../sample/no/write-business-json.js';
import { filesOf, type SourceSample } from '../../../sample/source-sample.js';

export const sample: SourceSample = filesOf('no-business', BUSINESS_SAMPLE_FILES);
