/**
 * The sample writer of se-transactions: Lantmäteriet's property price tar.
 * The sample generator runs it (sample/register-files.ts finds this file by the source's folder).
 * A tool, like sample/: production code never imports it (.dependency-cruiser.cjs).
 */
import { SE_TRANSACTIONS_SAMPLE_FILE } from '../../../sample/se/property-sales.js';
import type { SourceSample } from '../../../sample/source-sample.js';

export const sample: SourceSample = { files: [SE_TRANSACTIONS_SAMPLE_FILE] };
