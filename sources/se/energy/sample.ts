/**
 * The sample writer of se-energy: Boverket's energy declaration file.
 * The sample generator runs it (sample/register-files.ts finds this file by the source's folder).
 * A tool, like sample/: production code never imports it (.dependency-cruiser.cjs).
 */
import { SE_ENERGY_SAMPLE_FILE } from '../../../sample/se/energy-declarations.js';
import type { SourceSample } from '../../../sample/source-sample.js';

export const sample: SourceSample = { files: [SE_ENERGY_SAMPLE_FILE] };
