/**
 * Norwegian cadastre identifiers (matrikkelnummer).
 *
 * The normal form is five hyphen-separated numbers, municipality first, zeros written out:
 * `0301-208-327-0-12` (kommune-gnr-bnr-fnr-snr). Registers write the same unit in several
 * ways (`0301-208/327/0/12`, `208/327` beside a kommunenummer column); every parser funnels
 * through here so the store only ever sees the normal form.
 */

export interface NorwegianUnit {
  kommunenummer: string;
  gardsnummer: number;
  bruksnummer: number;
  festenummer: number;
  seksjonsnummer: number;
}

export class CadastreIdError extends Error {}

const MUNICIPALITY = /^\d{4}$/;

function toInt(field: string, value: string | number | null | undefined, optional: boolean): number {
  if (value === null || value === undefined || (typeof value === 'string' && value.trim() === '')) {
    if (optional) return 0;
    throw new CadastreIdError(`${field} is missing`);
  }
  const text = String(value).trim();
  if (!/^\d{1,5}$/.test(text)) throw new CadastreIdError(`${field} "${text}" is not a whole number`);
  return Number(text);
}

/** Accepts a municipality number that lost its leading zero (`301`) and pads it. */
export function normalizeMunicipality(value: string | number | null | undefined): string {
  const text = String(value ?? '').trim();
  const padded = /^\d{3}$/.test(text) ? `0${text}` : text;
  if (!MUNICIPALITY.test(padded)) throw new CadastreIdError(`kommunenummer "${text}" is not four digits`);
  return padded;
}

export function unitFromParts(parts: {
  kommunenummer: string | number | null | undefined;
  gardsnummer: string | number | null | undefined;
  bruksnummer: string | number | null | undefined;
  festenummer?: string | number | null;
  seksjonsnummer?: string | number | null;
}): NorwegianUnit {
  const unit = {
    kommunenummer: normalizeMunicipality(parts.kommunenummer),
    gardsnummer: toInt('gardsnummer', parts.gardsnummer, false),
    bruksnummer: toInt('bruksnummer', parts.bruksnummer, false),
    festenummer: toInt('festenummer', parts.festenummer, true),
    seksjonsnummer: toInt('seksjonsnummer', parts.seksjonsnummer, true),
  };
  if (unit.gardsnummer === 0) throw new CadastreIdError('gardsnummer 0 is not a registered unit');
  return unit;
}

export function formatCadastreId(unit: NorwegianUnit): string {
  return [unit.kommunenummer, unit.gardsnummer, unit.bruksnummer, unit.festenummer, unit.seksjonsnummer].join('-');
}

/**
 * Parses every written form a register uses:
 * `0301-208-327-0-12`, `0301-208/327/0/12`, `0301-208/327`, and `208/327[/f[/s]]` with
 * `municipality` supplied from a separate column.
 */
export function parseCadastreId(text: string, municipality?: string | number): NorwegianUnit {
  const input = text.trim();
  let kommune: string | number | undefined = municipality;
  let rest = input;
  const normal = /^(\d{3,4})-(\d+)-(\d+)-(\d+)-(\d+)$/.exec(input);
  if (normal) {
    const [, k, g, b, f, s] = normal;
    return unitFromParts({ kommunenummer: k, gardsnummer: g, bruksnummer: b, festenummer: f, seksjonsnummer: s });
  }
  const prefixed = /^(\d{3,4})-(.*)$/.exec(input);
  if (prefixed) {
    kommune = prefixed[1];
    rest = prefixed[2];
  }
  const slashed = rest.split('/');
  if (slashed.length < 2 || slashed.length > 4 || slashed.some((p) => !/^\d+$/.test(p))) {
    throw new CadastreIdError(`"${text}" is not a Norwegian cadastre number`);
  }
  if (kommune === undefined) throw new CadastreIdError(`"${text}" has no municipality number`);
  const [g, b, f, s] = slashed;
  return unitFromParts({ kommunenummer: kommune, gardsnummer: g, bruksnummer: b, festenummer: f, seksjonsnummer: s });
}

export function normalizeCadastreId(text: string, municipality?: string | number): string {
  return formatCadastreId(parseCadastreId(text, municipality));
}
