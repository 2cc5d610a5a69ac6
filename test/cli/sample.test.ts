import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/config.js';
import { generateSample } from '../../sample/generate.js';
import { SAMPLE_REGISTER_FILES } from '../../sample/register-files.js';
import { tempDir } from '../sample/helpers.js';

const run = promisify(execFile);

/** The built CLI (the package bin): compiled, so the generator writes Sweden in a worker thread. */
async function nordprop(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node', [path.join(PROJECT_ROOT, 'bin/nordprop.js'), ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const SCALE = '0.0005';

describe('nordprop sample --profile national', () => {
  it('writes the national mix at a scale, byte-identical to the same sample generated in one thread', async () => {
    const out = await tempDir('cli-national');
    const { code, stdout, stderr } = await nordprop('sample', '--out', out, '--profile', 'national', '--scale', SCALE, '--seed', 'cli', '--json');
    expect(code, stderr).toBe(0);
    const result = JSON.parse(stdout);
    // 2.6 M matrikkelenheter at 1.204 per teig, and 3.3 M properties, times the scale.
    expect(result).toMatchObject({ skipped: false, profile: 'national', scale: Number(SCALE), parcels: 1080, seProperties: 1650 });
    expect(result.built).toEqual({ parcels: 1080, seProperties: 1650 });

    // vitest runs the generator as TypeScript, where Sweden follows Norway in the same thread.
    const inProcess = await generateSample({ outDir: await tempDir('in-process-national'), profile: 'national', scale: Number(SCALE), seed: 'cli' });
    const manifest = async (file: string) => JSON.parse(await readFile(file, 'utf8'));
    const [threaded, sequential] = [await manifest(result.manifestPath), await manifest(inProcess.manifestPath)];
    // The two foundation files (addresses, teig) and one per sample register.
    expect(Object.keys(threaded.files)).toHaveLength(2 + SAMPLE_REGISTER_FILES.length);
    expect(threaded.files).toEqual(sequential.files);
    expect(threaded.rows).toEqual(sequential.rows);
  });

  it('writes a later night with --night, the Swedish thread drawing the same night as one thread does', async () => {
    const { code, stdout, stderr } = await nordprop('sample', '--out', await tempDir('cli-night'), '--profile', 'national', '--scale', SCALE, '--seed', 'cli', '--night', '1', '--json');
    expect(code, stderr).toBe(0);
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({ skipped: false, night: 1 });
    const manifest = async (file: string) => JSON.parse(await readFile(file, 'utf8'));
    const sequential = await generateSample({ outDir: await tempDir('in-process-night'), profile: 'national', scale: Number(SCALE), seed: 'cli', night: 1 });
    const nightZero = await generateSample({ outDir: await tempDir('in-process-night-zero'), profile: 'national', scale: Number(SCALE), seed: 'cli' });
    const [threaded, inProcess, zero] = [await manifest(result.manifestPath), await manifest(sequential.manifestPath), await manifest(nightZero.manifestPath)];
    expect(threaded.files).toEqual(inProcess.files);
    expect(threaded.night).toBe(1);
    // Both halves changed: a Norwegian and a Swedish register differ from night 0.
    expect(threaded.files['Basisdata_0000_Norge_25833_MatrikkelenEiendomskartTeig_GML.zip']).not.toBe(zero.files['Basisdata_0000_Norge_25833_MatrikkelenEiendomskartTeig_GML.zip']);
    expect(threaded.files['fastighetsindelning_sverige.gpkg']).not.toBe(zero.files['fastighetsindelning_sverige.gpkg']);
    const negative = await nordprop('sample', '--out', await tempDir('cli-bad'), '--night', '-1');
    expect(negative.code).toBe(2);
  });

  it('refuses a scale or size the profile does not take, with a message and exit code 2', async () => {
    const tooBig = await nordprop('sample', '--out', await tempDir('cli-bad'), '--profile', 'national', '--scale', '2');
    expect(tooBig.code).toBe(2);
    expect(tooBig.stderr).toMatch(/option '--scale <s>' argument '2' is invalid\. expected a fraction of national size from 0\.0005 to 1/);
    const both = await nordprop('sample', '--out', await tempDir('cli-bad'), '--profile', 'national', '--parcels', '100');
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/use --scale/);
    const unknown = await nordprop('sample', '--out', await tempDir('cli-bad'), '--profile', 'huge');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/option '--profile <name>' argument 'huge' is invalid\. Allowed choices are parcels, national/);
  });
});
