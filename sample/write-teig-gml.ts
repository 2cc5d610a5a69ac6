/**
 * Serialises sample parcels as Matrikkelen Eiendomskart Teig GML 3.2: a gml:FeatureCollection
 * of gml:featureMember/app:Teig, coordinates in EPSG:25833, east north, two decimals.
 */
import type { Point, SampleParcel, SampleUnit } from './types.js';

export const GML_NAMESPACE = 'http://www.opengis.net/gml/3.2';
export const TEIG_NAMESPACE = 'http://skjema.geonorge.no/SOSI/produktspesifikasjon/Matrikkelen-Eiendomskart-Teig/20211101';
export const TEIG_NAVNEROM = 'https://data.geonorge.no/sosi/matrikkelen/teig';
export const TEIG_SRS_NAME = 'urn:ogc:def:crs:EPSG::25833';

export const TEIG_GML_HEADER =
  '<?xml version="1.0" encoding="UTF-8"?>\n' +
  `<gml:FeatureCollection xmlns:gml="${GML_NAMESPACE}" xmlns:app="${TEIG_NAMESPACE}" gml:id="MatrikkelenEiendomskartTeig">\n`;
export const TEIG_GML_FOOTER = '</gml:FeatureCollection>\n';

function posList(ring: readonly Point[]): string {
  let out = '';
  for (let i = 0; i < ring.length; i++) out += `${i === 0 ? '' : ' '}${ring[i][0].toFixed(2)} ${ring[i][1].toFixed(2)}`;
  return out;
}

function unitXml(u: SampleUnit): string {
  return (
    '  <app:matrikkelenhet><app:Matrikkelenhet>' +
    `<app:kommunenummer>${u.kommunenummer}</app:kommunenummer>` +
    `<app:gardsnummer>${u.gardsnummer}</app:gardsnummer>` +
    `<app:bruksnummer>${u.bruksnummer}</app:bruksnummer>` +
    `<app:festenummer>${u.festenummer}</app:festenummer>` +
    `<app:seksjonsnummer>${u.seksjonsnummer}</app:seksjonsnummer>` +
    `<app:hovedteig>${u.hovedteig}</app:hovedteig>` +
    '</app:Matrikkelenhet></app:matrikkelenhet>\n'
  );
}

export function teigFeatureXml(p: SampleParcel): string {
  const id = `teig.${p.teigId}`;
  const interiors = p.holes
    .map((hole) => `<gml:interior><gml:LinearRing><gml:posList>${posList(hole)}</gml:posList></gml:LinearRing></gml:interior>`)
    .join('');
  return (
    `<gml:featureMember><app:Teig gml:id="${id}">\n` +
    `  <app:identifikasjon><app:Identifikasjon><app:lokalId>${p.teigId}</app:lokalId><app:navnerom>${TEIG_NAVNEROM}</app:navnerom><app:versjonId>${p.versjonId}</app:versjonId></app:Identifikasjon></app:identifikasjon>\n` +
    `  <app:oppdateringsdato>${p.oppdateringsdato}</app:oppdateringsdato>\n` +
    `  <app:kommunenummer>${p.kommunenummer}</app:kommunenummer>\n` +
    `  <app:område><gml:Polygon gml:id="${id}.omr" srsName="${TEIG_SRS_NAME}" srsDimension="2"><gml:exterior><gml:LinearRing><gml:posList>${posList(p.exterior)}</gml:posList></gml:LinearRing></gml:exterior>${interiors}</gml:Polygon></app:område>\n` +
    `  <app:representasjonspunkt><gml:Point gml:id="${id}.rp" srsName="${TEIG_SRS_NAME}"><gml:pos>${p.representasjonspunkt[0].toFixed(2)} ${p.representasjonspunkt[1].toFixed(2)}</gml:pos></gml:Point></app:representasjonspunkt>\n` +
    p.units.map(unitXml).join('') +
    `  <app:matrikkelnummerTekst>${p.matrikkelnummerTekst}</app:matrikkelnummerTekst>\n` +
    `  <app:teigMedFlereMatrikkelenheter>${p.teigMedFlereMatrikkelenheter}</app:teigMedFlereMatrikkelenheter>\n` +
    `  <app:teigareal><app:Areal><app:lagretBeregnetAreal>${p.lagretBeregnetAreal.toFixed(1)}</app:lagretBeregnetAreal></app:Areal></app:teigareal>\n` +
    `  <app:noyaktighetsklasseTeig>${p.noyaktighetsklasseTeig}</app:noyaktighetsklasseTeig>\n` +
    `  <app:uuidTeig>${p.uuidTeig}</app:uuidTeig>\n` +
    '</app:Teig></gml:featureMember>\n'
  );
}

/** The GML document in pieces: header, one feature per parcel, footer. */
export function* teigGmlPieces(parcels: Iterable<SampleParcel>): Generator<string> {
  yield TEIG_GML_HEADER;
  for (const parcel of parcels) yield teigFeatureXml(parcel);
  yield TEIG_GML_FOOTER;
}
