import path from 'node:path';
import { loadConfig } from '../lib/config.js';

/**
 * Where a register that nordprop cannot download by itself is expected: a file the operator
 * obtains (an API behind a key, or an exchange file filled from a register without open bulk
 * access) and drops into `<NORDPROP_DATA_DIR>/inbox/`. Read when the source runs, so it follows
 * the configured data folder. `nordprop backfill --input` and NORDPROP_INPUT_DIR still win.
 */
export function inboxPath(fileName: string): string {
  return path.join(loadConfig().dataDir, 'inbox', fileName);
}
