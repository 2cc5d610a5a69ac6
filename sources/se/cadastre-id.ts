/**
 * Swedish property designations (registerbeteckning) and their cadastreId normal form.
 *
 * A designation is registerområde (kommunnamn) + trakt or kvarter + block ":" enhet, for example
 * `STOCKHOLM KUNGSHOLMEN 1:2`; a kvarter designation has no block (`UMEÅ TOLVMANSGÅRDEN 4`);
 * samfälligheter and gemensamhetsanläggningar carry `S` or `GA` in the block slot
 * (`SOLNA BERGA S:3`). The cadastreId (DESIGN.md) is underscore-separated with the municipality
 * code first and inner spaces of the trakt as `-`: `0180_KUNGSHOLMEN_1_2`, `2480_TOLVMANSGÅRDEN_4`,
 * `0184_BERGA_S_3`.
 */

export interface SeDesignationParts {
  kommunkod: string;
  kommunnamn: string;
  trakt: string;
  /** Digits, `S`, `GA`, or null for a kvarter designation. */
  block: string | null;
  enhet: number;
}

export class SeDesignationError extends Error {}

const KOMMUNKOD = /^\d{4}$/;
const BLOCK = /^(\d+|S|GA)$/;

/** `1:7>2` → block `1`, enhet 7; `S:3` → `S`, 3; `4` → null, 4. The `>n` area suffix is dropped. */
export function parseEtikett(etikett: string): { block: string | null; enhet: number } {
  const match = /^\s*(?:(\d+|S|GA)\s*:\s*)?(\d+)\s*(?:>\s*\d+)?\s*$/i.exec(etikett);
  if (!match) throw new SeDesignationError(`etikett "${etikett}" is not block:enhet, S:n, GA:n or a kvarter unit number`);
  return { block: match[1] ? match[1].toUpperCase() : null, enhet: Number(match[2]) };
}

function checked(parts: SeDesignationParts): SeDesignationParts {
  if (!KOMMUNKOD.test(parts.kommunkod)) throw new SeDesignationError(`kommunkod "${parts.kommunkod}" is not four digits`);
  const trakt = parts.trakt.trim().replace(/\s+/g, ' ').toLocaleUpperCase('sv-SE');
  if (!trakt || /[_:]/.test(trakt)) throw new SeDesignationError(`trakt "${parts.trakt}" is empty or holds "_" or ":"`);
  const block = parts.block === null || parts.block.trim() === '' ? null : parts.block.trim().toUpperCase();
  if (block !== null && !BLOCK.test(block)) throw new SeDesignationError(`block "${parts.block}" is not a number, S or GA`);
  if (!Number.isInteger(parts.enhet) || parts.enhet < 1) throw new SeDesignationError(`enhet "${parts.enhet}" is not a positive whole number`);
  return { ...parts, trakt, block, kommunnamn: parts.kommunnamn.trim().toLocaleUpperCase('sv-SE') };
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
