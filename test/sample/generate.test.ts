import { createHash } from 'node:crypto';
import { readFile, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ADDRESS_CSV_ENTRY,
  ADDRESS_CSV_ZIP,
  TEIG_GML_ENTRY,
  TEIG_GML_ZIP,
  generateSample,
  type SampleResult,
} from '../../sample/generate.js';
import { GENERATOR_VERSION } from '../../sample/manifest.js';
import { readZip, tempDir } from './helpers.js';

const PARCELS = 300;

async function sha256(path: string): Promise<string> {
  return createHash('sha256').update(await readFile(path)).digest('hex');
}

describe('generateSample', () => {
  let first: SampleResult;
  let again: SampleResult;
  let other: SampleResult;

  beforeAll(async () => {
    first = await generateSample({ outDir: await tempDir('sample-a'), parcels: PARCELS, seed: 'determinism' });
    again = await generateSample({ outDir: await tempDir('sample-b'), parcels: PARCELS, seed: 'determinism' });
    other = await generateSample({ outDir: await tempDir('sample-c'), parcels: PARCELS, seed: 'another seed' });
  });

  it('writes both zips and the manifest under the real file names', () => {
    expect(first.skipped).toBe(false);
    expect(first.parcels).toBe(PARCELS);
    expect(first.files.addressCsvZip).toBe(join(first.outDir, 'Basisdata_0000_Norge_25833_MatrikkelenAdresse_CSV.zip'));
    expect(first.files.teigGmlZip).toBe(join(first.outDir, 'Basisdata_0000_Norge_25833_MatrikkelenEiendomskartTeig_GML.zip'));
    expect(first.manifestPath).toBe(join(first.outDir, 'sample-manifest.json'));
  });

  it('lays out the zips like the Geonorge downloads', async () => {
    const csvZip = await readZip(first.files.addressCsvZip);
    expect([...csvZip.keys()]).toEqual([
      'Basisdata_0000_Norge_25833_MatrikkelenAdresse_CSV/',
      'Basisdata_0000_Norge_25833_MatrikkelenAdresse_CSV/matrikkelenAdresse.csv',
    ]);
    const gmlZip = await readZip(first.files.teigGmlZip);
    expect([...gmlZip.keys()]).toEqual(['Basisdata_0000_Norge_25833_MatrikkelenEiendomskartTeig_GML.gml']);
  });

  it('is byte-identical for the same seed and size', async () => {
    for (const key of ['addressCsvZip', 'teigGmlZip'] as const) {
      const [a, b] = [await readFile(first.files[key]), await readFile(again.files[key])];
      expect(a.length).toBeGreaterThan(1000);
      expect(b.equals(a)).toBe(true);
    }
    expect(await readFile(again.manifestPath, 'utf8')).toBe(await readFile(first.manifestPath, 'utf8'));
  });

  it('differs for another seed', async () => {
    expect(await sha256(other.files.addressCsvZip)).not.toBe(await sha256(first.files.addressCsvZip));
    expect(await sha256(other.files.teigGmlZip)).not.toBe(await sha256(first.files.teigGmlZip));
  });

  it('records counts, sizes and sha256 that match the files', async () => {
    const manifest = JSON.parse(await readFile(first.manifestPath, 'utf8'));
    expect(manifest).toMatchObject({ generator: 'nordprop-sample', version: GENERATOR_VERSION, seed: 'determinism', parcels: PARCELS });
    for (const [name, path] of [[ADDRESS_CSV_ZIP, first.files.addressCsvZip], [TEIG_GML_ZIP, first.files.teigGmlZip]]) {
      expect(manifest.files[name]).toBe(await sha256(path));
      expect(manifest.sizes[name]).toBe((await stat(path)).size);
    }
    const csv = (await readZip(first.files.addressCsvZip)).get(ADDRESS_CSV_ENTRY)!.toString('utf8');
    const dataRows = csv.split('\n').length - 1;
    expect(manifest.addresses).toBe(dataRows);
    expect(first.addresses).toBe(dataRows);
    // ≈ 3.3 addresses per parcel
    expect(dataRows / PARCELS).toBeGreaterThan(2.8);
    expect(dataRows / PARCELS).toBeLessThan(3.8);
    const gml = (await readZip(first.files.teigGmlZip)).get(TEIG_GML_ENTRY)!.toString('utf8');
    expect(gml.match(/<app:Teig gml:id=/g)).toHaveLength(PARCELS);
  });

  it('skips regeneration when the manifest and file sizes match', async () => {
    const before = await stat(first.files.teigGmlZip);
    const result = await generateSample({ outDir: first.outDir, parcels: PARCELS, seed: 'determinism' });
    expect(result.skipped).toBe(true);
    expect(result.addresses).toBe(first.addresses);
    expect((await stat(first.files.teigGmlZip)).mtimeMs).toBe(before.mtimeMs);
  });

  it('treats a numeric seed like its text', async () => {
    const dir = await tempDir('sample-numeric');
    await generateSample({ outDir: dir, parcels: 40, seed: 7 });
    expect((await generateSample({ outDir: dir, parcels: 40, seed: '7' })).skipped).toBe(true);
  });

  it('regenerates when size, seed or a file no longer match', async () => {
    const dir = await tempDir('sample-regen');
    const base = await generateSample({ outDir: dir, parcels: 50, seed: 1 });
    const bigger = await generateSample({ outDir: dir, parcels: 60, seed: 1 });
    expect(bigger.skipped).toBe(false);
    expect(JSON.parse(await readFile(bigger.manifestPath, 'utf8')).parcels).toBe(60);

    const reseeded = await generateSample({ outDir: dir, parcels: 60, seed: 2 });
    expect(reseeded.skipped).toBe(false);

    const size = (await stat(reseeded.files.addressCsvZip)).size;
    await truncate(reseeded.files.addressCsvZip, size - 10);
    const repaired = await generateSample({ outDir: dir, parcels: 60, seed: 2 });
    expect(repaired.skipped).toBe(false);
    expect((await stat(repaired.files.addressCsvZip)).size).toBe(size);
    expect(base.addresses).toBeGreaterThan(0);
  });

  it('does not trust a manifest of another generator version', async () => {
    const dir = await tempDir('sample-version');
    const result = await generateSample({ outDir: dir, parcels: 30, seed: 3 });
    const manifest = JSON.parse(await readFile(result.manifestPath, 'utf8'));
    await writeFile(result.manifestPath, JSON.stringify({ ...manifest, version: 0 }));
    expect((await generateSample({ outDir: dir, parcels: 30, seed: 3 })).skipped).toBe(false);
  });

  it('reports progress up to the Norwegian parcels plus the Swedish properties', async () => {
    const calls: [number, number][] = [];
    await generateSample({ outDir: await tempDir('sample-progress'), parcels: 25, seed: 4, onProgress: (d, t) => calls.push([d, t]) });
    const total = 2 * 25; // the writers share each parcel and property: counted once
    expect(calls.at(-1)).toEqual([total, total]);
    expect(calls.every(([done, all], i) => all === total && (i === 0 || done >= calls[i - 1][0]))).toBe(true);
  });

  it('rejects a non-positive size before writing anything', async () => {
    await expect(generateSample({ outDir: await tempDir('sample-bad'), parcels: 0 })).rejects.toThrow(/positive/);
  });
});
