import { readFile, writeFile } from 'node:fs/promises';

/**
 * Puts a generated section into a report: the text between `<!-- <marker>:start -->` and
 * `<!-- <marker>:end -->` is replaced, or the section appended when the report has none yet.
 * Several benchmark programs write into one BENCHMARKS.md this way, each its own section.
 */
export async function replaceSection(file: string, marker: string, section: string): Promise<void> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const pattern = new RegExp(`<!-- ${marker}:start -->[\\s\\S]*<!-- ${marker}:end -->\\n?`);
  // A function replacement: `$` in the section is text, not a replacement pattern.
  const appended = text.trim() ? `${text.trimEnd()}\n\n${section}` : section;
  await writeFile(file, pattern.test(text) ? text.replace(pattern, () => section) : appended);
}
