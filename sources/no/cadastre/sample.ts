/**
 * The sample writer of no-cadastre: The teig GML zip is one of the foundation's two files, which the generator writes itself
 * before every register (sample/write-countries.ts): every Norwegian register builds on its parcels.
 * The sample generator runs it (sample/register-files.ts finds this file by the source's folder).
 * A tool, like sample/: production code never imports it (.dependency-cruiser.cjs).
 */
import { TEIG_GML_ZIP } from '../../../sample/foundation-files.js';
import type { SourceSample } from '../../../sample/source-sample.js';

export const sample: SourceSample = { foundationFile: TEIG_GML_ZIP, files: [] };
