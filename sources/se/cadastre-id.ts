/**
 * Swedish property designations (registerbeteckning) and their cadastreId normal form.
 *
 * A designation is registerområde (kommunnamn) + trakt or kvarter + block ":" enhet, for example
 * `STOCKHOLM KUNGSHOLMEN 1:2`; a kvarter designation has no block (`UMEÅ TOLVMANSGÅRDEN 4`).
 * Units that are not fastigheter carry a letter code in the block slot, written in upper or
 * lower case by the registers: samfälligheter `S` (`SOLNA BERGA S:3`, `Berga s:3`),
 * gemensamhetsanläggningar `GA` (`Oskarshamn Berga ga:1`), fiskeområden `FA`. An etikett's
 * `>n` suffix numbers one area (skifte) of a unit with several: it names an area, not the unit.
 *
 * The cadastreId (docs/design.md) is underscore-separated with the municipality code first and inner
 * spaces of the trakt as `-`: `0180_KUNGSHOLMEN_1_2`, `2480_TOLVMANSGÅRDEN_4`, `0184_BERGA_S_3`,
 * `0184_BERGA_GA_1`. `seCadastreId` writes it and `parseSeCadastreId` reads it back with the
 * same grammar, so every id the store holds is accepted by the API and written back unchanged.
 */

export interface SeDesignationParts {
  kommunkod: string;
  kommunnamn: string;
  trakt: string;
  /** Digits, a letter code of UNIT_CODES, or null for a kvarter designation. */
  block: string | null;
  enhet: number;
}

export class SeDesignationError extends Error {}

/** Block-slot letter codes of register units that are not fastigheter, and their property type. */
export const UNIT_CODES = {
  S: 'SAMFÄLLIGHET',
  GA: 'GEMENSAMHETSANLÄGGNING',
  FA: 'FISKEOMRÅDE',
} as const;
export type UnitCode = keyof typeof UNIT_CODES;

const KOMMUNKOD = /^\d{4}$/;
const BLOCK_NUMBER = /^\d{1,5}$/;
const LETTER_CODE = new RegExp(`^(?:${Object.keys(UNIT_CODES).join('|')})$`);
/** A trakt as it stands in a cadastreId: letters of any script, digits, `-` (also for a space), `.`, `'`. */
const TRAKT_SEGMENT = /^[\p{L}\p{M}\p{N}.'-]+$/u;
const ENHET = /^\d{1,6}$/;
const ETIKETT = new RegExp(`^\\s*(?:(\\d{1,5}|${Object.keys(UNIT_CODES).join('|')})\\s*:\\s*)?(\\d{1,6})\\s*(?:>\\s*\\d+)?\\s*$`, 'i');

/** Upper case as the register writes it (Swedish rules; the same for the id and the designation). */
const upper = (text: string) => text.toLocaleUpperCase('sv-SE');

/** The property type a designation's block slot implies: a letter code's, else FASTIGHET. */
export function typeOfBlock(block: string | null): string {
  return isUnitCode(block) ? UNIT_CODES[block] : 'FASTIGHET';
}

/** `1:7>2` → block `1`, enhet 7; `S:3`, `s:3` → `S`, 3; `ga:1` → `GA`, 1; `4` → null, 4. The `>n` area suffix is dropped. */
export function parseEtikett(etikett: string): { block: string | null; enhet: number } {
  const match = ETIKETT.exec(etikett);
  if (!match) throw new SeDesignationError(`etikett "${etikett}" is not block:enhet, S:n, GA:n, FA:n or a kvarter unit number`);
  return { block: match[1] ? normalBlock(match[1]) : null, enhet: Number(match[2]) };
}

/** True for a letter code of UNIT_CODES (`S`, `GA`, `FA`), in upper case. */
export function isUnitCode(block: string | null): block is UnitCode {
  return block !== null && LETTER_CODE.test(block);
}

/** A block number without leading zeros; a letter code in upper case. */
export function normalBlock(block: string): string {
  const text = upper(block.trim());
  if (BLOCK_NUMBER.test(text)) return String(Number(text));
  if (LETTER_CODE.test(text)) return text;
  throw new SeDesignationError(`block "${block}" is not a number or one of ${Object.keys(UNIT_CODES).join(', ')}`);
}

function checked(parts: SeDesignationParts): SeDesignationParts {
  if (!KOMMUNKOD.test(parts.kommunkod)) throw new SeDesignationError(`kommunkod "${parts.kommunkod}" is not four digits`);
  const trakt = upper(parts.trakt.trim().replace(/\s+/g, ' '));
  if (!trakt || !TRAKT_SEGMENT.test(trakt.replace(/ /g, '-'))) {
    throw new SeDesignationError(`trakt "${parts.trakt}" is empty or holds a character other than letters, digits, space, "-", "." and "'"`);
  }
  const block = parts.block === null || parts.block.trim() === '' ? null : normalBlock(parts.block);
  if (!Number.isInteger(parts.enhet) || parts.enhet < 1 || parts.enhet > 999999) throw new SeDesignationError(`enhet "${parts.enhet}" is not a positive whole number`);
  return { ...parts, trakt, block, kommunnamn: upper(parts.kommunnamn.trim()) };
}

/** `0180_KUNGSHOLMEN_1_2`; a kvarter without block has three segments. */
export function seCadastreId(parts: SeDesignationParts): string {
  const { kommunkod, trakt, block, enhet } = checked(parts);
  return [kommunkod, trakt.replace(/ /g, '-'), ...(block === null ? [] : [block]), String(enhet)].join('_');
}

/** `STOCKHOLM KUNGSHOLMEN 1:2`, `UMEÅ TOLVMANSGÅRDEN 4`. */
export function seDesignation(parts: SeDesignationParts): string {
  const { kommunnamn, trakt, block, enhet } = checked(parts);
  return `${kommunnamn} ${trakt} ${block === null ? '' : `${block}:`}${enhet}`;
}

/**
 * The parts of a cadastreId in any case (`0184_berga_s_3`), spaces in the trakt read as `-`;
 * null when it is not one. The trakt comes back as the id writes it (`STORA-ESSINGEN`): the id
 * does not say whether a `-` was a space, and `seCadastreId` of the parts is the normal id.
 */
export function parseSeCadastreId(id: string): Omit<SeDesignationParts, 'kommunnamn'> | null {
  const segments = upper(id.trim()).replace(/ +/g, '-').split('_');
  if (segments.length !== 3 && segments.length !== 4) return null;
  const [kommunkod, trakt] = segments;
  const block = segments.length === 4 ? segments[2] : null;
  const enhet = segments[segments.length - 1];
  if (!KOMMUNKOD.test(kommunkod) || !TRAKT_SEGMENT.test(trakt) || !ENHET.test(enhet)) return null;
  if (block !== null && !BLOCK_NUMBER.test(block) && !LETTER_CODE.test(block)) return null;
  if (Number(enhet) < 1) return null;
  return { kommunkod, trakt, block: block === null ? null : normalBlock(block), enhet: Number(enhet) };
}

/** The normal form of a Swedish cadastreId, or null when the text is not one. */
export function normalSeCadastreId(id: string): string | null {
  const parts = parseSeCadastreId(id);
  return parts && seCadastreId({ ...parts, kommunnamn: '' });
}

/** The grammar of a Swedish cadastreId in its normal form, for documentation (the OpenAPI description). */
export const SE_CADASTRE_ID_PATTERN = `^[0-9]{4}_[\\p{L}\\p{M}\\p{N}.'-]+(_(0|[1-9][0-9]{0,4}|${Object.keys(UNIT_CODES).join('|')}))?_[1-9][0-9]{0,5}$`;
