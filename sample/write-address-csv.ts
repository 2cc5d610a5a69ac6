/**
 * Serialises sample addresses as Kartverket's Matrikkelen Adresse CSV (46-column layout):
 * `;`-separated, no quoting, UTF-8 without BOM, LF, no newline after the last row, empty = null,
 * Nord before Øst with two decimals.
 */
import type { SampleAddress, SampleParcel } from './types.js';

export const ADDRESS_CSV_HEADER =
  'lokalid;kommunenummer;kommunenavn;adressetype;adressetilleggsnavn;adressetilleggsnavnKilde;adressekode;adressenavn;nummer;bokstav;gardsnummer;bruksnummer;festenummer;undernummer;adresseTekst;adresseTekstUtenAdressetilleggsnavn;EPSG-kode;Nord;Øst;postnummer;poststed;grunnkretsnummer;grunnkretsnavn;soknenummer;soknenavn;organisasjonsnummer;tettstednummer;tettstednavn;valgkretsnummer;valgkretsnavn;oppdateringsdato;datauttaksdato;adresseId;uuidAdresse;atkomstId;uuidAtkomst;atkomstNord;atkomstØst;sommeratkomstId;uuidSommeratkomst;sommeratkomstNord;sommeratkomstØst;vinteratkomstId;uuidVinteratkomst;vinteratkomstNord;vinteratkomstØst';

export const ADDRESS_CSV_EPSG = 25833;
/** The extract time written in every row (`datauttaksdato`). */
export const DATAUTTAKSDATO = '02.01.2025 05:31:17';

/** The twelve atkomst / sommeratkomst / vinteratkomst columns, always empty in the real file. */
const EMPTY_ACCESS_COLUMNS = ';'.repeat(12);

const text = (value: string | number | null): string => (value === null ? '' : String(value));

export function addressCsvRow(a: SampleAddress): string {
  const d = a.districts;
  return [
    a.adresseId,
    a.kommunenummer,
    a.kommunenavn,
    a.adressetype,
    '', // adressetilleggsnavn
    '', // adressetilleggsnavnKilde
    text(a.adressekode),
    text(a.adressenavn),
    text(a.nummer),
    text(a.bokstav),
    a.gardsnummer,
    a.bruksnummer,
    text(a.festenummer),
    text(a.undernummer),
    a.adresseTekst,
    a.adresseTekst, // adresseTekstUtenAdressetilleggsnavn: no tilleggsnavn in the sample
    ADDRESS_CSV_EPSG,
    a.north.toFixed(2),
    a.east.toFixed(2),
    a.postnummer,
    a.poststed,
    d.grunnkrets.nummer,
    d.grunnkrets.navn,
    d.sokn.nummer,
    d.sokn.navn,
    d.sokn.organisasjonsnummer,
    d.tettsted?.nummer ?? '',
    d.tettsted?.navn ?? '',
    d.valgkrets.nummer,
    d.valgkrets.navn,
    a.oppdateringsdato,
    DATAUTTAKSDATO,
    a.adresseId,
    a.uuidAdresse,
  ].join(';') + EMPTY_ACCESS_COLUMNS;
}

export interface CsvStats {
  rows: number;
}

/**
 * The CSV text in pieces, header first, one parcel's rows per piece; rows are joined by LF with
 * none after the last. `stats.rows` counts data rows as they are produced.
 */
export function* addressCsvPieces(parcels: Iterable<SampleParcel>, stats: CsvStats): Generator<string> {
  yield ADDRESS_CSV_HEADER;
  for (const parcel of parcels) {
    if (parcel.addresses.length === 0) continue;
    let piece = '';
    for (const address of parcel.addresses) piece += `\n${addressCsvRow(address)}`;
    stats.rows += parcel.addresses.length;
    yield piece;
  }
}
