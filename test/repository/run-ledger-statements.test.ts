import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/config.js';

/**
 * Issue 20: the run ledger's SQL in one module. Production code reads and writes the tables run
 * and source_run only through lib/run-ledger.ts, so a change to the ledger is made in one place.
 */
const LEDGER_MODULE = 'lib/run-ledger.ts';
const PRODUCTION_FOLDERS = ['lib', 'sources', 'derive', 'events', 'activities', 'workflows', 'store', 'api', 'worker', 'cli'];
const LEDGER_STATEMENT = /\bsource_run\b|\b(?:INTO|UPDATE|FROM|JOIN)\s+run\b/;

async function productionFiles(): Promise<string[]> {
  const files: string[] = [];
  for (const folder of PRODUCTION_FOLDERS) {
    const entries = await readdir(path.join(PROJECT_ROOT, folder), { recursive: true, withFileTypes: true });
    for (const entry of entries) {
      if (entry.isFile() && entry.name.endsWith('.ts')) files.push(path.relative(PROJECT_ROOT, path.join(entry.parentPath, entry.name)));
    }
  }
  return files;
}

describe('the run ledger\'s statements', () => {
  it(`are all in ${LEDGER_MODULE}`, async () => {
    const elsewhere: string[] = [];
    for (const file of await productionFiles()) {
      if (file === LEDGER_MODULE) continue;
      const lines = (await readFile(path.join(PROJECT_ROOT, file), 'utf8')).split('\n');
      lines.forEach((line, i) => LEDGER_STATEMENT.test(line) && elsewhere.push(`${file}:${i + 1}: ${line.trim()}`));
    }
    expect(elsewhere).toEqual([]);
    expect(await readFile(path.join(PROJECT_ROOT, LEDGER_MODULE), 'utf8')).toMatch(LEDGER_STATEMENT);
  });
});
