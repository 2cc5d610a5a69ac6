/**
 * The matrikkelenheter of a Teig: the parts its GML names (kommunenummer, gårdsnummer,
 * bruksnummer, festenummer, seksjonsnummer, hovedteig) made into cadastre ids, the Norwegian
 * part of reading the cadastre's GML.
 */
import { CadastreIdError, formatCadastreId, normalizeMunicipality, unitFromParts } from '../cadastre-id.js';

export interface TeigUnitRef {
  kommunenummer: string;
  gardsnummer: number;
  bruksnummer: number;
  festenummer: number;
  seksjonsnummer: number;
  /** Normal form via formatCadastreId, e.g. '0301-208-327-0-0'. */
  cadastreId: string;
  /** hovedteig: this teig is the unit's main parcel. */
  isMainParcel: boolean;
}

/** A unit's parts as the GML gives them, before they are checked. */
export interface UnitParts {
  kommunenummer: string | null;
  gardsnummer: string | null;
  bruksnummer: string | null;
  festenummer: string | null;
  seksjonsnummer: string | null;
  hoved: boolean | null;
}

export function emptyUnit(): UnitParts {
  return { kommunenummer: null, gardsnummer: null, bruksnummer: null, festenummer: null, seksjonsnummer: null, hoved: null };
}

/**
 * The teig's municipality and its units in normal form, each once (hovedteig: the declared one,
 * or the first when none is declared), or the reason the teig must be rejected.
 */
export function unitsOfTeig(kommunenummer: string | null, teigUnits: readonly UnitParts[]): { teigKommune: string | null; units: TeigUnitRef[] } | string {
  let teigKommune: string | null = null;
  if (kommunenummer !== null && kommunenummer !== '') {
    try {
      teigKommune = normalizeMunicipality(kommunenummer);
    } catch (e) {
      if (e instanceof CadastreIdError) return `teig ${e.message}`;
      throw e;
    }
  }

  let anyDeclared = false;
  for (const u of teigUnits) if (u.hoved !== null) anyDeclared = true;
  const units: TeigUnitRef[] = [];
  for (let i = 0; i < teigUnits.length; i++) {
    const parts = teigUnits[i];
    let unit;
    try {
      unit = unitFromParts({
        kommunenummer: parts.kommunenummer ?? teigKommune,
        gardsnummer: parts.gardsnummer,
        bruksnummer: parts.bruksnummer,
        festenummer: parts.festenummer,
        seksjonsnummer: parts.seksjonsnummer,
      });
    } catch (e) {
      if (e instanceof CadastreIdError) return `matrikkelenhet ${i + 1}: ${e.message}`;
      throw e;
    }
    const isMainParcel = anyDeclared ? parts.hoved === true : i === 0;
    const cadastreId = formatCadastreId(unit);
    // Units per teig are few, so a linear scan beats building a Map.
    const dup = units.find((u) => u.cadastreId === cadastreId);
    if (dup) {
      dup.isMainParcel ||= isMainParcel;
      continue;
    }
    units.push({
      kommunenummer: unit.kommunenummer,
      gardsnummer: unit.gardsnummer,
      bruksnummer: unit.bruksnummer,
      festenummer: unit.festenummer,
      seksjonsnummer: unit.seksjonsnummer,
      cadastreId,
      isMainParcel,
    });
  }
  return { teigKommune, units };
}
