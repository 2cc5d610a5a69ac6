/**
 * Reading Lantmäteriet GeoPackage attribute values: SQLite hands back text, integers or NULL
 * as the producer typed the column, and the registers are not consistent about it (kommunkod
 * as text `"0180"` or integer `180`, `block` as text, `enhet` as integer).
 */

/** Trimmed text, or null for NULL and blank. */
export function text(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const trimmed = String(value).trim();
  return trimmed === '' ? null : trimmed;
}

/** A whole number from an integer or digit text; null for NULL/blank; NaN for anything else. */
export function wholeNumber(value: unknown): number | null {
  const t = text(value);
  if (t === null) return null;
  return /^-?\d+$/.test(t) ? Number(t) : NaN;
}

/** A code with leading zeros (kommunkod 4, länskod 2) from text or integer; null when it does not fit. */
export function paddedCode(value: unknown, digits: number): string | null {
  const t = text(value);
  if (t === null || !/^\d+$/.test(t) || t.length > digits) return null;
  return t.padStart(digits, '0');
}

/** An ISO timestamp as the registers write it, or null; anything unparseable is null too. */
export function isoTimestamp(value: unknown): string | null {
  const t = text(value);
  if (t === null || Number.isNaN(Date.parse(t))) return null;
  return t;
}
