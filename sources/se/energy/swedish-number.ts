/**
 * Numbers as Swedish registers print them: a decimal comma, spaces (or no-break spaces) between
 * thousands, and often a unit after the number (`"216 kWh/m² och år"`, `"1 234,5 m²"`).
 * Anything else in front of the number (`"ca 200"`), or a unit that is not one, is refused
 * rather than guessed.
 */

export class SwedishNumberError extends Error {}

const NUMBER = /^(-?\d{1,3}(?:[ \u00a0\u202f]\d{3})+|-?\d+)(?:[,.](\d+))?(?:\s*([^\d\s].*))?$/;

export function parseSwedishNumber(field: string, text: string | number | null | undefined, options: { unit?: RegExp } = {}): number | null {
  if (text === null || text === undefined) return null;
  if (typeof text === 'number') {
    if (!Number.isFinite(text)) throw new SwedishNumberError(`${field} ${text} is not a number`);
    return text;
  }
  const trimmed = text.trim();
  if (trimmed === '' || trimmed === '-') return null;
  const match = NUMBER.exec(trimmed);
  if (!match) throw new SwedishNumberError(`${field} "${text}" is not a number (with an optional unit)`);
  const [, whole, fraction, unit] = match;
  if (unit !== undefined && options.unit && !options.unit.test(unit.trim())) {
    throw new SwedishNumberError(`${field} "${text}" has unit "${unit.trim()}", expected ${options.unit.source}`);
  }
  return Number(`${whole.replace(/[ \u00a0\u202f]/g, '')}${fraction ? `.${fraction}` : ''}`);
}
