import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { replaceSection } from '../../bench/report-section.js';

describe('replaceSection', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'nordprop-report-section-'));
    file = path.join(dir, 'BENCHMARKS.md');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const section = (marker: string, body: string) => `<!-- ${marker}:start -->\n${body}\n<!-- ${marker}:end -->\n`;

  it('replaces only its own section and keeps the rest of the report', async () => {
    await writeFile(file, `# Benchmarks\n\nintro\n\n${section('national-SE', 'old Sweden')}\n${section('national-NO', 'Norway')}\nafter\n`);
    await replaceSection(file, 'national-SE', section('national-SE', 'new Sweden: 1,234 $1 $& rows'));
    const text = await readFile(file, 'utf8');
    expect(text).toContain('new Sweden: 1,234 $1 $& rows');
    expect(text).not.toContain('old Sweden');
    expect(text).toContain('intro');
    expect(text).toContain(section('national-NO', 'Norway'));
    expect(text).toContain('after');
  });

  it('appends the section to a report that has none, or creates the report', async () => {
    await replaceSection(file, 'national-NO', section('national-NO', 'Norway'));
    expect(await readFile(file, 'utf8')).toBe(section('national-NO', 'Norway'));
    await replaceSection(file, 'national-SE', section('national-SE', 'Sweden'));
    const text = await readFile(file, 'utf8');
    expect(text.indexOf('Norway')).toBeLessThan(text.indexOf('Sweden'));
  });
});
