import type { CellValue } from './domain/cell-value.js';

/**
 * Encodes one row in PostgreSQL's COPY text format. Written here rather than taken from a
 * library because it is the innermost loop of every load: a handful of string operations per
 * cell, no allocation beyond the line itself.
 */

const NEEDS_ESCAPE = /[\\\t\n\r]/;
const ESCAPES = /[\\\t\n\r]/g;
const ESCAPED: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function escapeText(text: string): string {
  // A char-code scan beats a regex call on the short values that make up most cells; the
  // regex engine wins on long ones (geometry text).
  if (text.length > 48) return NEEDS_ESCAPE.test(text) ? text.replace(ESCAPES, (ch) => ESCAPED[ch]) : text;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92 || c === 9 || c === 10 || c === 13) return text.replace(ESCAPES, (ch) => ESCAPED[ch]);
  }
  return text;
}

/** One element of a text array literal, double-quoted so commas, braces and spaces survive. */
export function arrayElement(item: string): string {
  return `"${item.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

function arrayLiteral(items: readonly string[]): string {
  return `{${items.map(arrayElement).join(',')}}`;
}

export function encodeCell(value: CellValue): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'string') return escapeText(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`cannot COPY non-finite number ${value}`);
    return String(value);
  }
  if (typeof value === 'boolean') return value ? 't' : 'f';
  return escapeText(arrayLiteral(value));
}

/** The cells after the position, tab-joined: both the COPY payload and the input of the row hash. */
export function encodeCells(values: readonly CellValue[]): string {
  let line = encodeCell(values[0]);
  for (let i = 1; i < values.length; i++) line += `\t${encodeCell(values[i])}`;
  return line;
}

/** What a backslash followed by this letter stands for in COPY's text output (it writes no other escapes). */
const UNESCAPED: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };
const ESCAPE_SEQUENCE = /\\(.)/g;

/**
 * The cells of one line of `COPY … TO STDOUT` in text format: NULL as null, text unescaped. The
 * inverse of encodeCells for text, so a value with a tab, newline or backslash reads back as it is
 * stored (split on tabs alone, it was cut in two or kept its escapes).
 */
export function decodeCells(line: string): (string | null)[] {
  const cells = line.split('\t');
  if (!line.includes('\\')) return cells;
  return cells.map((cell) => (cell === '\\N' ? null : cell.includes('\\') ? cell.replace(ESCAPE_SEQUENCE, (_, ch: string) => UNESCAPED[ch] ?? ch) : cell));
}
