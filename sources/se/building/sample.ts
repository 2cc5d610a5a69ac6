/**
 * The sample writer of se-building: Lantmäteriet's Byggnad GeoPackage.
 * The sample generator runs it (sample/register-files.ts finds this file by the source's folder).
 * A tool, like sample/: production code never imports it (.dependency-cruiser.cjs).
 */
import { SE_GEODATA_SAMPLE_FILES } from '../../../sample/se/write-geopackages.js';
import { filesOf, type SourceSample } from '../../../sample/source-sample.js';

export const sample: SourceSample = filesOf('se-building', SE_GEODATA_SAMPLE_FILES);
