import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/config.js';

/**
 * The import-layering lint (`npm run lint:imports`, run by `npm test` before the suite) applied
 * to small trees: the project's own dependency-cruiser config must fail on an upward import
 * and pass a downward one.
 */

const run = promisify(execFile);
const DEPCRUISE = path.join(PROJECT_ROOT, 'node_modules/.bin/depcruise');
const CONFIG = path.join(PROJECT_ROOT, '.dependency-cruiser.cjs');

let tree: string | undefined;

afterEach(async () => {
  if (tree) await rm(tree, { recursive: true, force: true });
  tree = undefined;
});

/** Writes the files (path → TypeScript source) into a fresh folder and lints it as the project is linted. */
async function lint(files: Record<string, string>): Promise<{ exitCode: number; output: string }> {
  tree = await mkdtemp(path.join(os.tmpdir(), 'nordprop-layers-'));
  for (const [file, source] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(tree, file)), { recursive: true });
    await writeFile(path.join(tree, file), source);
  }
  try {
    const { stdout, stderr } = await run(DEPCRUISE, ['--config', CONFIG, '--output-type', 'err', '.'], { cwd: tree });
    return { exitCode: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { exitCode: typeof failed.code === 'number' ? failed.code : -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

describe('import layering (.dependency-cruiser.cjs)', () => {
  it('passes an import down a floor', async () => {
    const result = await lint({
      'lib/domain/country.ts': `export const COUNTRIES = ['NO', 'SE'] as const;\n`,
      'activities/plan.ts': `import { COUNTRIES } from '../lib/domain/country.js';\nexport const plan = COUNTRIES.length;\n`,
    });
    expect(result.output).not.toContain('error');
    expect(result.exitCode).toBe(0);
  });

  it('fails on an import up from lib/ to activities/', async () => {
    const result = await lint({
      'activities/index.ts': `export const downloadArtifact = () => 1;\n`,
      'lib/temporal/worker.ts': `import { downloadArtifact } from '../../activities/index.js';\nexport const activities = [downloadArtifact];\n`,
    });
    expect(result.exitCode).not.toBe(0);
    expect(result.output).toContain('upward-from-lib: lib/temporal/worker.ts → activities/index.ts');
  });

  it('fails when production code imports the sample generator', async () => {
    const result = await lint({
      'sample/plans.ts': `export const plans = 1;\n`,
      'derive/tenants/evaluation.ts': `import { plans } from '../../sample/plans.js';\nexport const truth = plans;\n`,
    });
    expect(result.exitCode).not.toBe(0);
    expect(result.output).toContain('production-imports-tool: derive/tenants/evaluation.ts → sample/plans.ts');
  });

  it('fails when workflow code loads a module the Temporal sandbox may not (a type-only import passes)', async () => {
    const result = await lint({
      'activities/index.ts': `export const stage = async (): Promise<number> => 1;\n`,
      'workflows/ingest.ts': [
        `import type * as activities from '../activities/index.js';`,
        `import { readFileSync } from 'node:fs';`,
        `export type Activities = typeof activities;`,
        `export const read = readFileSync;`,
        '',
      ].join('\n'),
    });
    expect(result.exitCode).not.toBe(0);
    expect(result.output).toContain('workflow-sandbox: workflows/ingest.ts → fs');
    expect(result.output).not.toContain('activities/index.ts');
  });
  it("lets a source's sample writer import the sample generator, and fails when production code imports that writer", async () => {
    const result = await lint({
      'sample/no/energy-certificates.ts': `export const ENERGY_SAMPLE_FILE = { sourceId: 'no-energy' };\n`,
      'sources/no/energy/sample.ts': `import { ENERGY_SAMPLE_FILE } from '../../../sample/no/energy-certificates.js';\nexport const sample = { files: [ENERGY_SAMPLE_FILE] };\n`,
      'sources/no/energy/adapter.ts': `import { sample } from './sample.js';\nexport const noEnergy = { id: 'no-energy', sample };\n`,
    });
    expect(result.exitCode).not.toBe(0);
    expect(result.output).toContain('production-imports-tool: sources/no/energy/adapter.ts → sources/no/energy/sample.ts');
    expect(result.output).not.toContain('sources/no/energy/sample.ts → sample/');
  });
  it('fails when a shared format reader imports a country folder', async () => {
    const result = await lint({
      'sources/no/cadastre-id.ts': `export const formatCadastreId = (id: string) => id;\n`,
      'sources/formats/teig-gml.ts': `import { formatCadastreId } from '../no/cadastre-id.js';\nexport const read = formatCadastreId;\n`,
      'sources/no/cadastre/parse.ts': `import { formatCadastreId } from '../cadastre-id.js';\nexport const read = formatCadastreId;\n`,
    });
    expect(result.exitCode).not.toBe(0);
    expect(result.output).toContain('shared-source-code-imports-a-country: sources/formats/teig-gml.ts → sources/no/cadastre-id.ts');
    expect(result.output).not.toContain('sources/no/cadastre/parse.ts →');
  });
});
