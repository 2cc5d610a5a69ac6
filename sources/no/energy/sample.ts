/**
 * The sample writer of no-energy: Enova's energy certificate CSV.
 * The sample generator runs it (sample/register-files.ts finds this file by the source's folder).
 * A tool, like sample/: production code never imports it (.dependency-cruiser.cjs).
 */
import { ENERGY_SAMPLE_FILE } from '../../../sample/no/energy-certificates.js';
import type { SourceSample } from '../../../sample/source-sample.js';

export const sample: SourceSample = { files: [ENERGY_SAMPLE_FILE] };
