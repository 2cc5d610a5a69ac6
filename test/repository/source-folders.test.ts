import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/config.js';
import { COUNTRIES } from '../../lib/domain/country.js';
import { sampleOfSource } from '../../sample/source-sample.js';
import { SOURCES, sourceFolder } from '../../sources/registry.js';

/**
 * A source is a folder: what README's "Adding a source" asks of a new source, checked for every
 * registered one. Its folder `sources/<country>/<id>/` holds the adapter (adapter.ts) and its
 * sample writer (sample.ts), which the sample generator runs; its tests sit in the mirrored
 * test folder; its doc page exists, names it, and lists the API fields it feeds and those it
 * cannot feed (issue 22).
 */

const at = (relative: string) => path.join(PROJECT_ROOT, relative);

function testFilesUnder(relative: string): string[] {
  if (!existsSync(at(relative))) return [];
  return readdirSync(at(relative), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.test.ts'));
}

/** The step list of README's "Adding a source". */
function addingASource(): string {
  const readme = readFileSync(at('README.md'), 'utf8');
  const start = readme.indexOf('### Adding a source');
  expect(start, 'README has an "Adding a source" section').toBeGreaterThanOrEqual(0);
  const end = readme.indexOf('\n#', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

describe('every registered source is a folder with its roles', () => {
  it.each(SOURCES.map((source) => [source.id, source] as const))('%s: sources/<country>/<id>/adapter.ts exports the registered adapter', async (_id, source) => {
    const adapterFile = `${sourceFolder(source)}/adapter.ts`;
    expect(existsSync(at(adapterFile)), `${adapterFile} exists`).toBe(true);
    const specifier = `../../${sourceFolder(source)}/adapter.js`;
    const exported = Object.values((await import(/* @vite-ignore */ specifier)) as Record<string, unknown>);
    expect(exported, `${adapterFile} exports the adapter sources/registry.ts lists`).toContain(source);
  });

  it.each(SOURCES.map((source) => [source.id, source] as const))('%s: has a test under test/sources/<country>/<id>/', (_id, source) => {
    const folder = `test/${sourceFolder(source)}`;
    expect(testFilesUnder(folder), `a *.test.ts under ${folder}/`).not.toEqual([]);
  });

  it.each(SOURCES.map((source) => [source.id, source] as const))('%s: its doc page exists and names it', (_id, source) => {
    expect(source.docs, 'the adapter links a page under docs/').toMatch(/^docs\/.+\.md$/);
    expect(existsSync(at(source.docs)) && statSync(at(source.docs)).isFile(), `${source.docs} exists`).toBe(true);
    expect(readFileSync(at(source.docs), 'utf8'), `${source.docs} names ${source.id}`).toContain(`\`${source.id}\``);
    expect(readFileSync(at('README.md'), 'utf8'), `README's source table links ${source.docs}`).toContain(`](${source.docs})`);
  });

  it.each(SOURCES.map((source) => [source.id, source] as const))('%s: its doc page lists the API fields it feeds and those it cannot (issue 22)', (_id, source) => {
    const headings = readFileSync(at(source.docs), 'utf8').split('\n').filter((line) => /^#+ /.test(line)).map((line) => line.replace(/^#+ /, '').trim());
    for (const heading of ['API fields it feeds', 'API fields it cannot feed']) expect(headings, `${source.docs} has a "${heading}" heading`).toContain(heading);
  });

  it.each(SOURCES.map((source) => [source.id, source] as const))('%s: its sample writer writes the file it reads, and the generator runs it', async (_id, source) => {
    const sample = await sampleOfSource(source);
    const names = sample.foundationFile ? [sample.foundationFile] : sample.files.map((file) => file.fileName);
    expect(names, 'the sample file carries the name the source reads').toEqual([source.inputFileName]);
    // Loaded here, after the source's own writer: a missing writer fails its own test above, by name.
    const generator = await import('../../sample/register-files.js');
    if (sample.foundationFile) expect(generator.FOUNDATION_FILES[source.id]).toBe(source.inputFileName);
    else expect(generator.SAMPLE_REGISTER_FILES.filter((file) => file.sourceId === source.id)).toEqual(sample.files);
  });

  it('every adapter folder is registered (none is left out of sources/registry.ts)', () => {
    const registered = new Set(SOURCES.map(sourceFolder));
    for (const country of COUNTRIES) {
      const root = `sources/${country.toLowerCase()}`;
      for (const entry of readdirSync(at(root), { withFileTypes: true })) {
        const folder = `${root}/${entry.name}`;
        if (entry.isDirectory() && existsSync(at(`${folder}/adapter.ts`))) expect(registered, `${folder} is registered`).toContain(folder);
      }
    }
  });

  it("README's \"Adding a source\" names each step this test checks", () => {
    const steps = addingASource();
    for (const step of ['sources/<country>/<id>/', 'adapter.ts', 'sample.ts', 'sources/registry.ts', 'test/sources/<country>/<id>/', '`docs`', 'docs/sources/', 'schema/']) {
      expect(steps, `the section names ${step}`).toContain(step);
    }
  });
});
