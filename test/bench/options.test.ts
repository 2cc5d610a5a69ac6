import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseOptions } from '../../bench/options.js';
import { PROJECT_ROOT } from '../../lib/config.js';

describe('bench options', () => {
  it('measures both countries into BENCHMARKS.md at national size by default', () => {
    const options = parseOptions([]);
    expect(options.country).toBeUndefined();
    expect(options.out).toBe(path.join(PROJECT_ROOT, 'BENCHMARKS.md'));
    expect(options.keepDatabase).toBe(false);
  });

  it('writes a one-country national run to its own report, from the same sample', () => {
    const both = parseOptions([]);
    const sweden = parseOptions(['--country', 'SE', '--keep-database']);
    expect(sweden.country).toBe('SE');
    expect(sweden.out).toBe(path.join(PROJECT_ROOT, 'BENCHMARKS-SE.md'));
    expect(sweden.sampleDir).toBe(both.sampleDir);
    expect(sweden.keepDatabase).toBe(true);
  });

  it('keeps smaller one-country runs out of the committed reports', () => {
    const options = parseOptions(['--scale', '0.1', '--country', 'NO']);
    expect(options.out).toBe(path.join(options.workDir, 'BENCHMARKS-national-0.1-NO.md'));
    expect(options.sampleDir).toBe(path.join(options.workDir, 'sample-national-0.1'));
  });

  it('rejects a country it has no sources for', () => {
    expect(() => parseOptions(['--country', 'DK'])).toThrow(/--country must be one of NO, SE/);
  });
});
