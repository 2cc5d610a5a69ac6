import { CadastreIdError, formatCadastreId, unitFromParts, type NorwegianUnit } from './cadastre-id.js';
import { RecordError } from '../formats/json-lines.js';

/**
 * The `matrikkel` object of nordprop's Norwegian exchange files, named as Kartverket and
 * Enova name the parts (kommunenummer, gardsnummer, bruksnummer, festenummer, seksjonsnummer).
 * The schema checks the shapes; this turns them into the store's cadastre id.
 */
export interface ExchangeMatrikkel {
  kommunenummer: string;
  gardsnummer: number;
  bruksnummer: number;
  festenummer?: number;
  seksjonsnummer?: number;
}

/** The unit an exchange record names; an impossible one rejects the record, naming its `field`. */
export function exchangeUnitOf(matrikkel: ExchangeMatrikkel, field: string): NorwegianUnit {
  try {
    return unitFromParts(matrikkel);
  } catch (error) {
    if (error instanceof CadastreIdError) throw new RecordError(`${field}: ${error.message}`);
    throw error;
  }
}

export function cadastreOf(matrikkel: ExchangeMatrikkel): { cadastreId: string; municipality: string } {
  const unit = exchangeUnitOf(matrikkel, 'matrikkel');
  return { cadastreId: formatCadastreId(unit), municipality: unit.kommunenummer };
}
