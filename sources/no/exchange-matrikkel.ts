import { CadastreIdError, formatCadastreId, unitFromParts } from './cadastre-id.js';
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

export function cadastreOf(matrikkel: ExchangeMatrikkel): { cadastreId: string; municipality: string } {
  try {
    const unit = unitFromParts(matrikkel);
    return { cadastreId: formatCadastreId(unit), municipality: unit.kommunenummer };
  } catch (error) {
    if (error instanceof CadastreIdError) throw new RecordError(`matrikkel: ${error.message}`);
    throw error;
  }
}
