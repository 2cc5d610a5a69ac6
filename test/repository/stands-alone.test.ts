import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/config.js';

/**
 * A clone must work wherever it lands: no tracked file may name a path outside the repository
 * (a folder beside the clone, this machine's work folder, someone's home directory). The
 * patterns spell `/` as `[/]` so this file does not match itself.
 */
const OUTSIDE_PATHS: { what: string; pattern: RegExp }[] = [
  { what: 'a folder beside the repository', pattern: /\.\.[/]shared\b/ },
  { what: "this machine's work folder", pattern: /(?<![\w.-])[/]work[/]/ },
  { what: 'a home directory', pattern: /(?<![\w.-])(?:[/](?:home|Users)[/][\w.-]+|[/]root[/])|\b[A-Za-z]:\\Users\\/ },
];

/** Generated or third-party text that names no project path of its own. */
const NOT_SCANNED = new Set(['package-lock.json']);

function trackedTextFiles(): { file: string; text: string }[] {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: PROJECT_ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .split('\0')
    .filter((file) => file !== '' && !NOT_SCANNED.has(path.basename(file)));
  const texts: { file: string; text: string }[] = [];
  for (const file of files) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(path.join(PROJECT_ROOT, file));
    } catch {
      continue; // tracked but deleted in this working tree
    }
    if (bytes.includes(0)) continue; // binary: a zip, a GeoPackage
    texts.push({ file, text: bytes.toString('utf8') });
  }
  return texts;
}

describe('the repository stands alone', () => {
  it('names no path outside the repository in any tracked text file', () => {
    const files = trackedTextFiles();
    expect(files.length).toBeGreaterThan(100);
    const found: string[] = [];
    for (const { file, text } of files) {
      text.split('\n').forEach((line, index) => {
        for (const { what, pattern } of OUTSIDE_PATHS) {
          const match = pattern.exec(line);
          if (match) found.push(`${file}:${index + 1}: ${what}: ${line.trim().slice(0, 160)}`);
        }
      });
    }
    expect(found).toEqual([]);
  });

  it('recognises each kind of outside path it forbids', () => {
    const named = (line: string) => OUTSIDE_PATHS.filter(({ pattern }) => pattern.test(line)).map(({ what }) => what);
    expect(named(['see ..', 'shared', 'DESIGN.md'].join('/'))).toEqual(['a folder beside the repository']);
    expect(named(`readFileSync('${['', 'work', 'shared', 'data', 'x.csv'].join('/')}')`)).toEqual(["this machine's work folder"]);
    expect(named(`const dir = '${['', 'home', 'alice', 'data'].join('/')}'`)).toEqual(['a home directory']);
    expect(named(`cd ${['', 'root', '.cache'].join('/')}`)).toEqual(['a home directory']);
    expect(named('C:\\Users\\bob\\nordprop')).toEqual(['a home directory']);
    // Paths inside the repository and URLs are fine.
    expect(named('sample/data/se-kommuner.geojson, https://example.org/work/home/x, ./work/file')).toEqual([]);
  });
});
