/**
 * The sample writer of no-building: The Bygning GML zip, written with the matrikkel-detail file from the same sample buildings.
 * The sample generator runs it (sample/register-files.ts finds this file by the source's folder).
 * A tool, like sample/: production code never imports it (.dependency-cruiser.cjs).
 */
import { BUILDING_SAMPLE_FILES } from '../../../sample/no/building-files.js';
import { filesOf, type SourceSample } from '../../../sample/source-sample.js';

export const sample: SourceSample = filesOf('no-building', BUILDING_SAMPLE_FILES);
