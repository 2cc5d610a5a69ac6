import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/config.js';
import * as realSamples from '../../sample/real-samples.js';

/** `file` → `sha256` from the table rows of sample/data/README.md ("| `name` | … | `digest` | … |"). */
function digestsInReadme(readme: string): Map<string, string> {
  const digests = new Map<string, string>();
  for (const line of readme.split('\n')) {
    const match = /^\| `([^`]+)` \|.*\| `([0-9a-f]{64})` \|/.exec(line);
    if (match) digests.set(match[1], match[2]);
  }
  return digests;
}

describe('the real public samples committed in sample/data', () => {
  const readme = readFileSync(path.join(PROJECT_ROOT, 'sample', 'data', 'README.md'), 'utf8');
  const digests = digestsInReadme(readme);
  const files = Object.entries(realSamples).filter(([name]) => name !== 'REAL_DATA_DIR').map(([, file]) => file);

  it('are each tracked by git, inside the repository, with the sha256 their README states', () => {
    expect(files.length).toBeGreaterThanOrEqual(5);
    const tracked = new Set(execFileSync('git', ['ls-files', '-z', 'sample/data'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).split('\0'));
    for (const file of files) {
      const relative = path.relative(PROJECT_ROOT, file).split(path.sep).join('/');
      expect(relative, file).toMatch(/^sample\/data\/[^/]+$/);
      expect(tracked.has(relative), `${relative} is not tracked`).toBe(true);
      const actual = createHash('sha256').update(readFileSync(file)).digest('hex');
      expect({ file: relative, sha256: actual }).toEqual({ file: relative, sha256: digests.get(path.basename(file)) });
    }
  });

  it('has an origin and a licence written for every file listed', () => {
    for (const name of digests.keys()) {
      const section = readme.split('\n- **').find((entry) => entry.startsWith(`\`${name}\`**`));
      expect(section, `no origin paragraph for ${name}`).toBeDefined();
      // Each paragraph names its licence, or says that none is stated, or inherits the one above.
      expect(section!, name).toMatch(/Licence|licence/);
    }
  });
});
