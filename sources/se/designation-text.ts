import { parseEtikett, seCadastreId, SeDesignationError } from './cadastre-id.js';

/**
 * Designations as the non-cadastral registers write them, as free text: Boverket's API gives
 * `HELGEANDSHOLMEN 1` without the registerområde, the energy extract and the price register may
 * give `STOCKHOLM KUNGSHOLMEN 1:2` with it. The municipality comes from a separate field (the
 * kommunkod the record belongs to), so the text is never split on its first space (names like
 * `UPPLANDS VÄSBY` run into the trakt): the last token is the etikett, the rest the trakt, and
 * a leading registerområde is removed only when it equals the municipality's own name.
 */
export function cadastreIdFromText(kommunkod: string, designation: string, kommunnamn?: string | null): string {
  let text = designation.trim().replace(/\s+/g, ' ').toLocaleUpperCase('sv-SE');
  const prefix = kommunnamn?.trim().toLocaleUpperCase('sv-SE');
  if (prefix && text.startsWith(`${prefix} `) && text.length > prefix.length + 1) {
    const rest = text.slice(prefix.length + 1);
    // `KIRUNA KIRUNA 1:1` keeps one KIRUNA as its trakt; strip only when a trakt remains.
    if (/ /.test(rest)) text = rest;
  }
  const space = text.lastIndexOf(' ');
  if (space <= 0) throw new SeDesignationError(`designation "${designation}" has no trakt and unit (expected e.g. KUNGSHOLMEN 1:2)`);
  const { block, enhet } = parseEtikett(text.slice(space + 1));
  return seCadastreId({ kommunkod, kommunnamn: kommunnamn ?? '', trakt: text.slice(0, space), block, enhet });
}

export { SeDesignationError };
