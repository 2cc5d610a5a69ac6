import path from 'node:path';
import { PROJECT_ROOT } from '../../lib/config.js';

/** The real public samples shipped beside the project (../shared/data/real; see its README). */
export const REAL_DATA_DIR = process.env.NORDPROP_REAL_DATA_DIR ?? path.resolve(PROJECT_ROOT, '../shared/data/real');
export const REAL_ADDRESS_ZIP = path.join(REAL_DATA_DIR, 'no-matrikkelen-adresse-46col-sample.zip');
